// Placeholder: filled by the MessageFilter issue.
import AhoCorasick
public enum MessageFilterPlaceholder {}
