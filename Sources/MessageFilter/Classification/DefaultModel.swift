import AhoCorasick

/// The built-in model: `samples/default-model.yaml`, learned by `make default-model` from UCI SMS Spam
/// (CC BY 4.0), Thai SMS (MIT) and generated records, and embedded by `Scripts/make-default-model.sh` as a
/// compiled `.smsf` (the model's rule table; its phrases are looked up in a hash table built at load,
/// `_ModelFeatures.swift`). ``RuleSet/embeddedDefault`` is the default rules with
/// this model at priority 95: only the government sender rules (priority 100) decide before it; below it,
/// rules of the action it chose supply the folder (docs/RULES.md §10; quality and provenance:
/// docs/QUALITY.md).
public enum DefaultModel {
    /// The model, decoded on first use.
    public static var definition: ModelDefinition { compiled.definition.model! }

    /// The model's checksum: that of its compiled rule table, as ``RuleSet/checksum`` gives it for
    /// `samples/default-model.yaml` loaded alone (what `smsfilter check` and `compile` print for that file).
    public static var checksum: String { String(_Checksum.hash(compiled.definitionBytes), radix: 16).leftPadded(to: 16) }

    /// The embedded `.smsf`, loaded and checked like a file (magic, version, length, both checksums, every
    /// section and the rule table) on first use. Phrase shapes are not re-checked here (they cost ~30M instructions at every start): the image is the
    /// compile of `samples/default-model.yaml`, whose parser checks them, and `DefaultRulesTests` checks
    /// both that the image is that compile and every embedded phrase's shape.
    static let compiled: _SMSFFormat.Parts = {
        guard let bytes = _decodeBase64(_embeddedDefaultModelBase64), bytes.count == _embeddedDefaultModelBytes else {
            fatalError("the embedded default model is damaged: run `make default-model`")
        }
        let parts: _SMSFFormat.Parts
        do {
            parts = try _SMSFFormat.parts(mapped: MappedBytes(copying: bytes), path: "embedded default model", checkShapes: false)
        } catch {
            fatalError("the embedded default model does not load (\(error)): run `make default-model`")
        }
        guard parts.definition.model != nil, parts.definition.rules.isEmpty, parts.definition.normalization == .standard
        else { fatalError("the embedded default model is not a model-only rule set: run `make default-model`") }
        return parts
    }()
}

/// Decodes base64 text (line breaks allowed, nothing else; `=` padding only at the end), nil when malformed.
/// One pass with a table over raw pointers (the output is written within the capacity computed from the
/// input length; the only unsafe code here): Foundation's decoder, or this loop over arrays, cost 55M
/// instructions on the 1.7 MB of the embedded model, a quarter of the model's start.
func _decodeBase64(_ text: String) -> [UInt8]? {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { table[Int(c)] = UInt8(i) }
    table[0x0A] = 0xFE
    table[0x0D] = 0xFE
    table[0x3D] = 0xFD  // "="
    var text = text
    return text.withUTF8 { src -> [UInt8]? in
        table.withUnsafeBufferPointer { t -> [UInt8]? in
            var ok = true
            let capacity = src.count / 4 * 3 + 3
            let result = [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
                var o = 0
                var acc: UInt32 = 0
                var n = 0
                var padding = 0
                var i = 0
                let count = src.count
                while i < count {
                    // Four symbols at once (a line of 120 characters is 30 such groups).
                    if n == 0, padding == 0, i &+ 4 <= count {
                        let a = t[Int(src[i])], b = t[Int(src[i &+ 1])], c = t[Int(src[i &+ 2])], d = t[Int(src[i &+ 3])]
                        if a | b | c | d < 64 {
                            let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                            out[o] = UInt8(truncatingIfNeeded: v >> 16)
                            out[o &+ 1] = UInt8(truncatingIfNeeded: v >> 8)
                            out[o &+ 2] = UInt8(truncatingIfNeeded: v)
                            o &+= 3
                            i &+= 4
                            continue
                        }
                    }
                    let v = t[Int(src[i])]
                    i &+= 1
                    if v < 64 {
                        if padding != 0 { ok = false; break }
                        acc = acc << 6 | UInt32(v)
                        n &+= 1
                    } else if v == 0xFE {
                        continue
                    } else if v == 0xFD {
                        padding &+= 1
                        if padding > 2 { ok = false; break }
                        acc <<= 6
                        n &+= 1
                    } else {
                        ok = false
                        break
                    }
                    if n == 4 {
                        // o + 3 <= capacity: each 3 bytes written consumed 4 input bytes.
                        out[o] = UInt8(truncatingIfNeeded: acc >> 16)
                        out[o &+ 1] = UInt8(truncatingIfNeeded: acc >> 8)
                        out[o &+ 2] = UInt8(truncatingIfNeeded: acc)
                        o &+= 3
                        acc = 0
                        n = 0
                    }
                }
                if n != 0 { ok = false }
                written = ok ? o - padding : 0
            }
            guard ok else { return nil }
            return result
        }
    }
}
