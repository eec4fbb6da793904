// Placeholder: filled by the AhoCorasick issue.
public enum AhoCorasickPlaceholder {}
