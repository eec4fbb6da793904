extension RuleSetDefinition {
    /// This definition with `model` as its learned model (replacing any).
    public func withModel(_ model: ModelDefinition?) -> RuleSetDefinition {
        var d = self
        d.model = model
        return d
    }
}
