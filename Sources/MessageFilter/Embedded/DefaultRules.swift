/// The built-in rule set's source (`samples/default-rules.yaml`, embedded by `Scripts/embed-default-rules.sh`).
public enum DefaultRules {
    /// The YAML text of the embedded default rules.
    public static var yaml: String { _embeddedDefaultRulesYAML }
}
