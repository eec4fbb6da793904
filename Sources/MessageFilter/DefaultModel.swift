import Foundation

/// The built-in model: `samples/default-model.yaml`, learned by `make default-model` from UCI SMS Spam
/// (CC BY 4.0), Thai SMS (MIT) and generated records, and embedded by `Scripts/make-default-model.sh` as a
/// compiled rule table. ``RuleSet/embeddedDefault`` is the default rules with this model at priority 95:
/// only the government sender rules (priority 100) decide before it; below it, rules of the action it
/// chose supply the folder (docs/RULES.md §10; quality and provenance: docs/QUALITY.md).
public enum DefaultModel {
    /// The model, decoded (and checked like a `.smsf`'s) on first use.
    public static let definition: ModelDefinition = {
        guard let data = Data(base64Encoded: _embeddedDefaultModelBase64, options: .ignoreUnknownCharacters),
              data.count == _embeddedDefaultModelBytes
        else { fatalError("the embedded default model is damaged: run `make default-model`") }
        do {
            let d = try data.withUnsafeBytes { try _DefinitionCodec.decode($0) }
            guard let model = d.model, d.rules.isEmpty, d.normalization == .standard else {
                fatalError("the embedded default model is not a model-only rule table: run `make default-model`")
            }
            return model
        } catch {
            fatalError("the embedded default model does not decode (\(error)): run `make default-model`")
        }
    }()
}
