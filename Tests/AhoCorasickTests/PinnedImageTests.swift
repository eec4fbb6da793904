import AhoCorasick
import TestSupport
import XCTest

/// The serialized image's header, pinned as literal bytes: images are written to disk (inside `.smsf` rule
/// sets shipped to phones) and must stay readable, so a change of the layout, the version, the counts the
/// compiler produces or the checksum must be deliberate (bump the version and re-pin).
final class PinnedImageTests: XCTestCase {
    static func image(_ engine: EngineChoice, _ folding: CaseFolding) throws -> [UInt8] {
        var builder = AhoCorasickBuilder()
        builder.engine = engine
        builder.caseFolding = folding
        return try builder.build([Pattern("he"), Pattern("she"), Pattern("his", wholeWord: true), Pattern("hers")]).serialize()
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }

    static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
    }

    static func hex(_ bytes: ArraySlice<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The header fields of he/she/his/hers, derived by hand: a trie of 10 nodes (root, h, he, s, sh, she,
    /// hi, his, her, hers) plus the dead state; 5 letters plus the class of every other byte; 4 match
    /// states; match list entries he [0], she [1, 0] (she ends in he), his [2], hers [3]; with Unicode folding
    /// one fold pair (ſ → s) is kept, the only non-trivial fold into the patterns' letters. Format version 2:
    /// the DFA's 11 × 6 table fits 16-bit ids (engine code 2); the compact-DFA fields (76..<92) are zero for
    /// the dense DFA and the NFA; four literals without Unicode folding get the Teddy prefilter (92: 1).
    func testHeaderFields() throws {
        for (engine, engineCode) in [(EngineChoice.dfa, UInt32(2)), (.nfa, 1)] {
            for (folding, foldingCode) in [(CaseFolding.none, UInt32(0)), (.unicode, 2)] {
                let bytes = try Self.image(engine, folding)
                let context = "\(engine) \(folding)"
                XCTAssertEqual(Array(bytes[0..<8]), Array("AHOCORSK".utf8), context)
                XCTAssertEqual(Self.hex(bytes[8..<12]), "0d0c0b0a", "endianness marker, little-endian: \(context)")
                XCTAssertEqual(Self.u32(bytes, 12), 2, "format version: \(context)")
                XCTAssertEqual(Self.u64(bytes, 16), UInt64(bytes.count), "total length: \(context)")
                XCTAssertEqual(Self.u32(bytes, 32), engineCode, context)
                XCTAssertEqual(Self.u32(bytes, 36), 0, "standard: \(context)")
                XCTAssertEqual(Self.u32(bytes, 40), foldingCode, context)
                XCTAssertEqual(Self.u32(bytes, 44), 4, "patterns: \(context)")
                XCTAssertEqual(Self.u32(bytes, 48), 11, "states: 10 trie nodes and the dead state: \(context)")
                XCTAssertEqual(Self.u32(bytes, 52), 6, "byte classes: e h i r s and the rest: \(context)")
                XCTAssertEqual(Self.u32(bytes, 56), 4, "match states: he she his hers: \(context)")
                XCTAssertEqual(Self.u32(bytes, 60), 5, "match entries: he [0], she [1, 0], his [2], hers [3]: \(context)")
                XCTAssertEqual(Self.u32(bytes, 68), folding == .unicode ? 1 : 0, "fold pairs: ſ → s: \(context)")
                XCTAssertEqual(Self.u32(bytes, 72), 1, "flags: a whole-word pattern: \(context)")
                XCTAssertEqual(Array(bytes[76..<92]), [UInt8](repeating: 0, count: 16), "compact-DFA fields: \(context)")
                XCTAssertEqual(Self.u32(bytes, 92), folding == .none ? 1 : 0, "prefilter: Teddy without Unicode folding: \(context)")
                // The checksum covers everything but itself; it is what AhoCorasick._checksum computes.
                let checksum = bytes.withUnsafeBytes { AhoCorasick._checksum($0) }
                XCTAssertEqual(Self.u64(bytes, 24), checksum, context)
            }
        }
    }

    /// The whole header, byte for byte (the checksum included: it pins the hash function too), for every
    /// engine; the compact DFA's fields at 76..<92 (comb cells, start id, largest match id, default rows)
    /// are the compiler's counts, pinned as they are.
    func testHeaderBytes() throws {
        let expected: [String: String] = [
            "dfa none": "41484f434f52534b0d0c0b0a02000000c012000000000000e54e5c24d03a69f1020000000000000000000000040000000b0000000600000004000000050000000000000000000000010000000000000000000000000000000000000001000000",
            "dfa unicode": "41484f434f52534b0d0c0b0a020000006002000000000000f4d430a62e1ffbc7020000000000000002000000040000000b0000000600000004000000050000000000000001000000010000000000000000000000000000000000000000000000",
            "nfa none": "41484f434f52534b0d0c0b0a02000000f01200000000000007319bce19a2db03010000000000000000000000040000000b0000000600000004000000050000000900000000000000010000000000000000000000000000000000000001000000",
            "nfa unicode": "41484f434f52534b0d0c0b0a02000000900200000000000010f6d64b4ca2df6e010000000000000002000000040000000b0000000600000004000000050000000900000001000000010000000000000000000000000000000000000000000000",
            "compact none": "41484f434f52534b0d0c0b0a0200000020130000000000008017cf4627042510030000000000000000000000040000000b0000000600000004000000050000000000000000000000010000001000000005000000040000000600000001000000",
            "compact unicode": "41484f434f52534b0d0c0b0a02000000c0020000000000000c11f1ccbe9fb597030000000000000002000000040000000b0000000600000004000000050000000000000001000000010000001000000005000000040000000600000000000000",
        ]
        for engine in [EngineChoice.dfa, .nfa, .compact] {
            for folding in [CaseFolding.none, .unicode] {
                let bytes = try Self.image(engine, folding)
                let key = "\(engine) \(folding)"
                XCTAssertEqual(Self.hex(bytes[0..<96]), expected[key], key)
            }
        }
    }
}
