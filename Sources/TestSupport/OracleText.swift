import Foundation

/// The character facts the oracles use, written out here or taken from Foundation (CoreFoundation's own
/// Unicode tables), never from `AhoCorasick` (`simpleCaseFold`, `isWordScalar`) nor from the standard
/// library's `Unicode.Scalar.Properties` that the implementation derives its folding and word test from.
/// An oracle that shares the code it checks cannot disagree with it.
///
/// - ASCII: the 26 letter pairs and the 10 digits are spelled out below.
/// - Word characters beyond ASCII: `CharacterSet.alphanumerics` (Unicode general categories L*, M*, N*, the
///   same definition as the whole-word test's).
/// - Case folding beyond ASCII: `String.folding(options: .caseInsensitive, locale: nil)`, CoreFoundation's
///   case folding of one scalar. It is full folding (`ß` → `ss`), so two scalars compare equal when their
///   foldings are equal strings: `ẞ` and `ß` both give `ss`, as they fold together under simple folding;
///   `ß` never equals the single scalar `s`. CoreFoundation's tables are of an older Unicode version than
///   the standard library's: scalars assigned since (a few thousand, none in the scripts the tests use) may
///   disagree.
public enum OracleText {
    /// `A`…`Z`, spelled out.
    public static let uppercase: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    /// `a`…`z`, spelled out, in the same order.
    public static let lowercase: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    /// `0`…`9`, spelled out.
    public static let digits: [UInt8] = Array("0123456789".utf8)

    /// Byte → its ASCII lowercase (the 26 pairs above; every other byte maps to itself).
    static let lowerTable: [UInt8] = {
        var table = (0...255).map { UInt8($0) }
        for (upper, lower) in zip(uppercase, lowercase) { table[Int(upper)] = lower }
        return table
    }()

    /// Byte → whether it is an ASCII word character (the 62 letters and digits above).
    static let asciiWordTable: [Bool] = {
        var table = [Bool](repeating: false, count: 128)
        for b in uppercase + lowercase + digits { table[Int(b)] = true }
        return table
    }()

    /// `b` with `A`–`Z` mapped to `a`–`z`.
    public static func asciiLower(_ b: UInt8) -> UInt8 { lowerTable[Int(b)] }

    /// Whether `scalar` is a word character: an ASCII letter or digit, or beyond ASCII a letter, a mark or a
    /// number according to `CharacterSet.alphanumerics`.
    public static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return asciiWordTable[Int(scalar.value)] }
        return CharacterSet.alphanumerics.contains(scalar)
    }

    /// The string two scalars must share to be equal under Unicode case folding (see the type's notes).
    public static func foldKey(_ scalar: Unicode.Scalar) -> String {
        if scalar.value < 0x80 { return String(Unicode.Scalar(asciiLower(UInt8(scalar.value)))) }
        return String(String.UnicodeScalarView([scalar])).folding(options: .caseInsensitive, locale: nil)
    }

    /// Whether two scalars are equal under Unicode case folding (see ``foldKey(_:)``).
    public static func foldEqual(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        a == b || foldKey(a) == foldKey(b)
    }
}
