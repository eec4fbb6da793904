/// The kind of a message's sender string (SPEC §4).
public enum SenderKind: String, Sendable, CaseIterable, Hashable {
    /// An E.164 number (`+919876543210`) or national digits, normalised to country code + number.
    case phoneNumber
    /// 3 to 8 digits (`56161`, `121`).
    case shortCode
    /// Letters and digits (`HDFCBK`, `VM-HDFCBK-S`, `Amazon`).
    case alphanumeric
    /// An e-mail address (iMessage-style senders, SMS-to-mail gateways).
    case email
    /// No sender, or nothing recognisable (empty, only punctuation).
    case unknown
}

/// A TRAI DLT header suffix (India): the message category the sender registered.
public enum TRAISuffix: UInt8, Sendable, CaseIterable, Hashable {
    /// `-P`: promotional.
    case promotional = 0x50  // "P"
    /// `-S`: service (service-implicit / service-explicit).
    case service = 0x53  // "S"
    /// `-T`: transactional.
    case transactional = 0x54  // "T"
    /// `-G`: government.
    case government = 0x47  // "G"

    /// The one-letter form (`"T"`).
    public var letter: String { String(UnicodeScalar(rawValue)) }
}

/// A sender string, classified on its bytes without allocating.
///
/// Byte ranges index the sender bytes the value was parsed from.
public struct SenderInfo: Sendable, Equatable {
    /// The kind of sender.
    public var kind: SenderKind
    /// For ``SenderKind/phoneNumber``: country calling code + national number (CallKit's
    /// `CXCallDirectoryPhoneNumber`); for ``SenderKind/shortCode``: the digits' value; else 0.
    public var number: Int64
    /// For a phone number: the country calling code (`91`), else 0.
    public var countryCode: Int32
    /// For a TRAI DLT header (`VM-HDFCBK-S`): the operator letter (`V`), else 0.
    public var traiOperator: UInt8
    /// For a TRAI DLT header: the circle letter (`M`), else 0.
    public var traiCircle: UInt8
    /// For a TRAI DLT header: the byte range of the entity (`HDFCBK`); empty otherwise.
    public var traiEntity: Range<Int>
    /// For a TRAI DLT header with a suffix: the suffix.
    public var traiSuffix: TRAISuffix?

    /// Whether the sender is a TRAI DLT header.
    public var isTRAIHeader: Bool { traiOperator != 0 }

    /// Classifies a sender given as UTF-8 bytes.
    ///
    /// - Parameters:
    ///   - bytes: the sender (nil or empty: ``SenderKind/unknown``).
    ///   - defaultCountryCode: the country calling code given to national numbers without one.
    /// - Complexity: O(n) in the sender's length, no allocation.
    public static func classify(_ bytes: UnsafeRawBufferPointer?, defaultCountryCode: Int32) -> SenderInfo {
        guard let bytes, !bytes.isEmpty else { return .unknown }
        let (lo, hi) = trimmed(bytes)
        if lo == hi { return .unknown }
        let scan = _SenderScan(bytes, lo, hi)
        if scan.isEmail(lo) { return SenderInfo.unknown.with(kind: .email) }
        if scan.isNumber { return number(scan, defaultCountryCode: defaultCountryCode) }
        guard scan.alnum else { return .unknown }
        return alphanumeric(bytes, lo, hi)
    }

    // MARK: Steps of classify (each on the trimmed bytes [lo, hi))

    /// Nothing known: ``SenderKind/unknown``, every other field empty.
    static var unknown: SenderInfo {
        SenderInfo(kind: .unknown, number: 0, countryCode: 0, traiOperator: 0, traiCircle: 0, traiEntity: 0..<0, traiSuffix: nil)
    }

    @inline(__always)
    private func with(kind: SenderKind, number: Int64 = 0, countryCode: Int32 = 0) -> SenderInfo {
        var info = self
        info.kind = kind
        info.number = number
        info.countryCode = countryCode
        return info
    }

    /// The sender without leading and trailing spaces and tabs.
    @inline(__always)
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> (lo: Int, hi: Int) {
        var lo = 0
        var hi = bytes.count
        while lo < hi, bytes[lo] == 0x20 || bytes[lo] == 0x09 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09 { hi -= 1 }
        return (lo, hi)
    }

    /// A number (`scan.isNumber`: optional "+", digits, and separators: space, -, ., parentheses): a phone number,
    /// a short code, or unknown.
    @inline(__always)
    private static func number(_ scan: _SenderScan, defaultCountryCode: Int32) -> SenderInfo {
        let digits = scan.digits
        let value = scan.value
        let leadingZeros = scan.leadingZeros
        let significant = digits - leadingZeros
        if scan.plus || (leadingZeros >= 2 && significant >= 7) {
            // International: +CC… or 00CC…
            if (7...15).contains(significant), let cc = SenderInfo.countryCode(of: value, digits: significant) {
                return SenderInfo.unknown.with(kind: .phoneNumber, number: value, countryCode: cc)
            }
        } else if (3...8).contains(digits) {
            return SenderInfo.unknown.with(kind: .shortCode, number: value)
        } else if digits >= 9, digits <= 15 {
            // 11+ digits that start with a known country code: written without "+".
            if leadingZeros == 0, digits >= 11, let cc = SenderInfo.countryCode(of: value, digits: digits),
               cc == defaultCountryCode || digits >= 12 {
                return SenderInfo.unknown.with(kind: .phoneNumber, number: value, countryCode: cc)
            }
            // National: drop one trunk "0", prefix the default country code.
            var scale: Int64 = 1
            for _ in 0..<significant { scale &*= 10 }
            let (product, o1) = Int64(defaultCountryCode).multipliedReportingOverflow(by: scale)
            let (sum, o2) = product.addingReportingOverflow(value)
            if !o1, !o2, defaultCountryCode > 0 {
                return SenderInfo.unknown.with(kind: .phoneNumber, number: sum, countryCode: defaultCountryCode)
            }
        }
        return SenderInfo.unknown
    }

    /// Alphanumeric (the sender has an ASCII letter or digit, or a non-ASCII byte: `_SenderScan.alnum`), and TRAI
    /// DLT headers: XY-ENTITY or XY-ENTITY-S.
    @inline(__always)
    private static func alphanumeric(_ bytes: UnsafeRawBufferPointer, _ lo: Int, _ hi: Int) -> SenderInfo {
        var info = SenderInfo.unknown
        info.kind = .alphanumeric
        if hi - lo >= 6, SenderInfo.isASCIILetter(bytes[lo]), SenderInfo.isASCIILetter(bytes[lo + 1]),
           bytes[lo + 2] == 0x2D {
            var end = hi
            var suffix: TRAISuffix?
            if hi - lo >= 8, bytes[hi - 2] == 0x2D, let s = TRAISuffix(rawValue: bytes[hi - 1] & 0xDF) {
                suffix = s
                end = hi - 2
            }
            let entity = (lo + 3)..<end
            var alnumEntity = entity.count >= 3 && entity.count <= 11
            for i in entity where !SenderInfo.isASCIIAlnum(bytes[i]) { alnumEntity = false }
            if alnumEntity {
                info.traiOperator = bytes[lo] & 0xDF
                info.traiCircle = bytes[lo + 1] & 0xDF
                info.traiEntity = entity
                info.traiSuffix = suffix
            }
        }
        return info
    }

    /// Classifies a sender string (convenience; allocates).
    public static func classify(_ sender: String?, defaultCountryCode: Int32 = 1) -> SenderInfo {
        guard let sender else { return classify(nil as UnsafeRawBufferPointer?, defaultCountryCode: defaultCountryCode) }
        var copy = sender
        return copy.withUTF8 { classify(UnsafeRawBufferPointer($0), defaultCountryCode: defaultCountryCode) }
    }

    @inline(__always) static func isASCIILetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    @inline(__always) static func isASCIIAlnum(_ b: UInt8) -> Bool { isASCIILetter(b) || (b >= 0x30 && b <= 0x39) }

    /// The ITU country calling code that `value` (with `digits` digits) starts with, if it is a known one.
    static func countryCode(of value: Int64, digits: Int) -> Int32? {
        var scale: Int64 = 1
        for _ in 0..<(digits - 1) { scale &*= 10 }
        let d1 = Int32(value / scale)
        if d1 == 1 || d1 == 7 { return d1 }
        guard digits >= 2 else { return nil }
        let d2 = Int32(value / (scale / 10))
        if SenderInfo.isTwoDigitCode(d2) { return d2 }
        guard digits >= 3 else { return nil }
        let d3 = Int32(value / (scale / 100))
        // Three-digit codes: every prefix not taken by a one- or two-digit code (2xx, 3xx, 4xx, 5xx, 6xx, 8xx, 9xx).
        if d1 >= 2, d1 != 7, d1 != 1 { return d3 }
        return nil
    }

    /// Whether `code` (10…99) is in ``twoDigitCodes``: a bit of two 64-bit masks (the set's hashing was most of
    /// classifying a phone-number sender; `SenderTests` checks the masks against the set).
    @inline(__always)
    static func isTwoDigitCode(_ code: Int32) -> Bool {
        guard code >= 0, code < 128 else { return false }
        let mask: UInt64 = code < 64 ? twoDigitMaskLow : twoDigitMaskHigh
        return mask >> UInt64(code & 63) & 1 != 0
    }

    /// ``twoDigitCodes`` as bits: code c is bit c of `low` (c < 64) or bit c − 64 of `high`.
    static let twoDigitMaskLow: UInt64 = 0xF7FB_FB97_C810_0000
    static let twoDigitMaskHigh: UInt64 = 0x4_FC56_0007

    /// ITU-T E.164 two-digit country calling codes.
    static let twoDigitCodes: Set<Int32> = [
        20, 27, 30, 31, 32, 33, 34, 36, 39, 40, 41, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54, 55, 56, 57, 58,
        60, 61, 62, 63, 64, 65, 66, 81, 82, 84, 86, 90, 91, 92, 93, 94, 95, 98,
    ]
}

/// What `SenderInfo.classify` reads of a sender's trimmed bytes [lo, hi), gathered in one pass (it was three: the
/// e-mail test, the number's digits and leading zeros, the search for a letter or digit; on the budget's
/// generated corpus 493 → 440 instructions per sender). `SenderTests.testOnePassClassifiesAsTheThreePassesDid`
/// holds it to the three passes.
struct _SenderScan {
    /// The offset of the one "@" (-1: none, -2: more than one); whether a space, and a "." after the first "@", occur.
    var at = -1
    var hasSpace = false
    var dotAfterAt = false
    /// Every byte is a digit, a separator (space, -, ., parentheses) or a "+" first (`plus`).
    var numeric = true
    var plus = false
    /// The count of digits and their value (its first 18 digits; `overflow`: more).
    var digits = 0
    var value: Int64 = 0
    var overflow = false
    /// The "0" digits before the first other digit.
    var leadingZeros = 0
    /// An ASCII letter or digit, or a non-ASCII byte, occurs.
    var alnum = false

    @inline(__always)
    init(_ bytes: UnsafeRawBufferPointer, _ lo: Int, _ hi: Int) {
        var nonZero = false
        var i = lo
        while i < hi {
            let b = bytes[i]
            if b &- 0x30 < 10 {
                alnum = true
                if numeric {
                    if digits >= 18 { overflow = true } else { value = value &* 10 &+ Int64(b &- 0x30) }
                    digits += 1
                }
                if !nonZero {
                    if b == 0x30 { leadingZeros += 1 } else { nonZero = true }
                }
            } else {
                switch b {
                case 0x20: hasSpace = true
                case 0x2E: if at >= 0 { dotAfterAt = true }
                case 0x2D, 0x28, 0x29: break
                case 0x2B: if i == lo { plus = true } else { numeric = false }
                case 0x40:
                    at = at == -1 ? i : -2
                    numeric = false
                default:
                    numeric = false
                    if b >= 0x80 || (b | 0x20) &- 0x61 < 26 { alnum = true }
                }
            }
            i += 1
        }
    }

    /// Email: one "@" with something before it and a dot after it, no spaces.
    @inline(__always)
    func isEmail(_ lo: Int) -> Bool { at > lo && !hasSpace && dotAfterAt }

    /// A number `SenderInfo.number` reads: numeric, with a digit, not too long.
    @inline(__always)
    var isNumber: Bool { numeric && digits > 0 && !overflow }
}
