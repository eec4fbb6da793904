import MessageFilter

extension RuleSet {
    /// Loads `--rules` (YAML or .smsf) or the embedded default set: the one rule loader of every command.
    /// Throws ``CommandFailure/init(loadingRules:_:)`` when the file is missing or bad.
    static func load(option path: String?) throws -> RuleSet {
        guard let path else { return RuleSet.embeddedDefault }
        do {
            return try RuleSet.load(path: path)
        } catch {
            throw CommandFailure(loadingRules: path, error)
        }
    }
}
