import AhoCorasick
import Foundation

/// The compiled rule set file (`.smsf`), version 6 (each automaton section holds a `_PhraseMatcher`
/// container: the narrow and wide automata; version 3 added the body conditions to the rule table,
/// `_ConditionCodec`, and ended the rule table with the normalisation mode and the learned model,
/// `_ModelCodec`; version 4 added the model's own automaton, section 4; version 5 the model's margins and
/// script counts; version 6 its overrule margins; since then the model has no automaton, section 4 is
/// written empty and ignored when read, so files that still carry one load unchanged). All integers
/// little-endian.
///
/// ```
/// offset  size  field
///      0     8  magic "SMSF\0\r\n\u{1A}"
///      8     4  format version (6)
///     12     4  section count (4)
///     16     8  total file length
///     24     8  checksum of bytes [64, length)
///     32     8  checksum of the rule table (the rule set's checksum)
///     40    24  reserved, zero
///     64  24×n  section table: kind u32, reserved u32, offset u64, length u64
///   ...         sections, each at a 16-byte-aligned offset:
///               1 rule table (the canonical rule encoding), 2 ASCII-folding matcher, 3 Unicode-folding matcher,
///               4 empty (the learned model's automaton of versions 4–6; ignored)
/// ```
/// Loading checks the magic, version, length, both checksums, every section's bounds and alignment, then
/// decodes the rule table with bounds-checked reads and checks each automaton's pattern count against it.
enum _SMSFFormat {
    static let magic: [UInt8] = [0x53, 0x4D, 0x53, 0x46, 0x00, 0x0D, 0x0A, 0x1A]
    static let version: UInt32 = 6
    static let headerSize = 64
    static let sectionEntry = 24

    static func serialize(_ set: RuleSet) -> [UInt8] {
        let sections: [(UInt32, [UInt8])] = [
            (1, set.definitionBytes),
            (2, set.matchers[0]?.serialize() ?? []),
            (3, set.matchers[1]?.serialize() ?? []),
            (4, []),
        ]
        var w = _ByteWriter()
        w.buffer = magic
        w.u32(version)
        w.u32(UInt32(sections.count))
        w.u64(0)  // length, patched
        w.u64(0)  // file checksum, patched
        w.u64(_Checksum.hash(set.definitionBytes))
        while w.buffer.count < headerSize { w.u8(0) }
        var offset = headerSize + sectionEntry * sections.count
        for (kind, bytes) in sections {
            offset = (offset + 15) & ~15
            w.u32(kind)
            w.u32(0)
            w.u64(UInt64(offset))
            w.u64(UInt64(bytes.count))
            offset += bytes.count
        }
        for (_, bytes) in sections {
            w.align(16)
            w.buffer.append(contentsOf: bytes)
        }
        var out = w.buffer
        let length = UInt64(out.count)
        withUnsafeBytes(of: length.littleEndian) { for i in 0..<8 { out[16 + i] = $0[i] } }
        let sum = out.withUnsafeBytes { _Checksum.hash(UnsafeRawBufferPointer(rebasing: $0[headerSize...])) }
        withUnsafeBytes(of: sum.littleEndian) { for i in 0..<8 { out[24 + i] = $0[i] } }
        return out
    }

    static func load(path: String) throws -> RuleSet {
        let mapped: MappedBytes
        do { mapped = try MappedBytes(path: path) } catch {
            throw RuleSetLoadError(.unreadable, path: path, detail: "cannot map the file: \(error)")
        }
        return try load(mapped: mapped, path: path)
    }

    /// Loads from bytes (copied into an aligned buffer); for tests.
    static func load(bytes: [UInt8], path: String) throws -> RuleSet {
        try load(mapped: MappedBytes(copying: bytes), path: path)
    }

    /// Loads a mapped `.smsf`: the automata are used in place (zero-copy).
    /// `checkShapes`: false only for the embedded default model (`DefaultModel`; see `_ModelCodec.decode`).
    static func load(mapped: MappedBytes, path: String) throws -> RuleSet {
        let p = try parts(mapped: mapped, path: path)
        return try RuleSet(definition: p.definition, source: path, prebuilt: p.matchers, definitionBytes: p.definitionBytes)
    }

    /// A checked `.smsf`'s contents, before they become a ``RuleSet``.
    struct Parts: Sendable {
        var definition: RuleSetDefinition
        var definitionBytes: [UInt8]
        var matchers: [_PhraseMatcher?]
    }

    /// Checks and decodes a mapped `.smsf` (everything `load` checks).
    static func parts(mapped: MappedBytes, path: String, checkShapes: Bool = true) throws -> Parts {
        func damaged(_ detail: String) -> RuleSetLoadError { RuleSetLoadError(.damaged, path: path, detail: detail) }
        let raw = mapped._unsafeBytes
        do {
            guard raw.count >= headerSize else { throw damaged("file is \(raw.count) bytes, shorter than the \(headerSize)-byte header") }
            guard Array(raw[0..<8]) == magic else { throw damaged("not a compiled rule set (bad magic)") }
            var r = _ByteReader(raw)
            r.offset = 8
            let v = try r.u32()
            guard v == version else { throw damaged("format version \(v); this smsfilter reads version \(version): recompile the rules") }
            let count = Int(try r.u32())
            let length = try r.u64()
            let fileSum = try r.u64()
            let ruleSum = try r.u64()
            guard raw[40..<headerSize].allSatisfy({ $0 == 0 }) else { throw damaged("reserved header bytes are not zero") }
            guard length == UInt64(raw.count) else { throw damaged("header says \(length) bytes, the file has \(raw.count) (truncated or extended)") }
            guard count == 4, headerSize + count * sectionEntry <= raw.count else { throw damaged("bad section count \(count)") }
            guard _Checksum.hash(UnsafeRawBufferPointer(rebasing: raw[headerSize...])) == fileSum else { throw damaged("checksum mismatch (the file was modified or corrupted)") }
            var sections: [UInt32: Range<Int>] = [:]
            r.offset = headerSize
            for _ in 0..<count {
                let kind = try r.u32()
                _ = try r.u32()
                let off = try r.u64()
                let len = try r.u64()
                guard (1...4).contains(kind), sections[kind] == nil else { throw damaged("bad section kind \(kind)") }
                guard off % 16 == 0, off >= UInt64(headerSize + count * sectionEntry), off <= UInt64(raw.count),
                      len <= UInt64(raw.count) - off else { throw damaged("section \(kind) out of bounds") }
                sections[kind] = Int(off)..<Int(off + len)
            }
            guard let defRange = sections[1] else { throw damaged("no rule table") }
            let defBytes = UnsafeRawBufferPointer(rebasing: raw[defRange])
            guard _Checksum.hash(defBytes) == ruleSum else { throw damaged("rule table checksum mismatch") }
            let definition: RuleSetDefinition
            do { definition = try _DefinitionCodec.decode(defBytes, checkShapes: checkShapes) } catch { throw damaged("rule table: \(error)") }
            // Build the rules' phrase table without automata, then load the automata and check them. The model is
            // left out of this pass: its phrases have no rule uses, so they are in no rule automaton
            // (`localToGlobal` is the same with or without it), and compiling it twice cost a third of the load.
            let shape = try RuleSet(definition: definition.withModel(nil), source: path, prebuilt: [nil, nil],
                                    definitionBytes: Array(defBytes))
            var matchers: [_PhraseMatcher?] = [nil, nil]
            for mode in CaseFoldMode.allCases {
                let range = sections[UInt32(mode.rawValue) + 2]!
                let expected = shape.localToGlobal[Int(mode.rawValue)].count
                if expected == 0 {
                    guard range.isEmpty else { throw damaged("unexpected \(mode.name) automaton") }
                    continue
                }
                let m: _PhraseMatcher
                do { m = try _PhraseMatcher(serialized: mapped, range: range, folding: mode) } catch {
                    throw damaged("\(mode.name) automaton: \(error)")
                }
                guard m.patternCount == expected, m.folding == mode else {
                    throw damaged("\(mode.name) automaton has \(m.patternCount) patterns, the rule table \(expected)")
                }
                matchers[Int(mode.rawValue)] = m
            }
            // Section 4 (a model automaton, as versions 4–6 wrote it) is covered by the checksum and not read.
            return Parts(definition: definition, definitionBytes: Array(defBytes), matchers: matchers)
        }
    }
}
