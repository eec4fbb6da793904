/// The currency markers and multipliers of the `amounts:` condition (docs/RULES.md §2.1 "Amounts").
enum _Currencies {
    /// The ISO 4217 codes `amounts:` accepts; a code's index is its bit in a currency mask.
    static let codes: [String] = [
        "USD", "GBP", "EUR", "INR", "PKR", "NPR", "LKR", "THB", "CNY", "JPY", "IDR", "MYR", "SGD", "HKD", "AUD",
        "CAD", "AED", "SAR", "PHP", "BDT", "NGN", "KES", "ZAR", "KRW", "VND", "TRY", "RUB", "BRL", "MXN", "CHF",
        "ILS", "UAH", "TWD", "NZD", "EGP", "QAR", "KWD",
    ]

    /// The mask bit of `code` (uppercase), or nil when it is not one of ``codes``.
    static func bit(_ code: String) -> UInt64? { codes.firstIndex(of: code).map { UInt64(1) << UInt64($0) } }

    static func mask(_ names: String...) -> UInt64 { names.reduce(0) { $0 | (bit($1) ?? 0) } }

    /// Where a marker may stand.
    enum Place: UInt8 { case prefix = 1, suffix = 2, both = 3 }

    /// One currency marker. ASCII markers compare case-insensitively and must not touch an ASCII letter on
    /// their outer side (before a prefix, after a suffix); other markers compare exactly.
    struct Marker {
        var bytes: [UInt8]
        var place: Place
        var mask: UInt64
        /// Starts (ends) with an ASCII letter: a word boundary is required before (after) it.
        var letterStart: Bool
        var letterEnd: Bool
    }

    static let rupees = mask("INR", "PKR", "NPR", "LKR")

    /// Every marker, longest first within a place, so the first match found is the longest.
    static let markers: [Marker] = {
        var list: [(String, Place, UInt64)] = [
            // Symbols, before or after the number.
            ("$", .both, mask("USD")), ("US$", .prefix, mask("USD")), ("S$", .prefix, mask("SGD")),
            ("HK$", .prefix, mask("HKD")), ("A$", .prefix, mask("AUD")), ("C$", .prefix, mask("CAD")),
            ("NT$", .prefix, mask("TWD")), ("NZ$", .prefix, mask("NZD")), ("R$", .prefix, mask("BRL")),
            ("£", .both, mask("GBP")), ("€", .both, mask("EUR")), ("¥", .both, mask("CNY", "JPY")),
            ("￥", .both, mask("CNY", "JPY")), ("₹", .both, mask("INR")), ("₨", .both, rupees), ("฿", .both, mask("THB")),
            ("₩", .both, mask("KRW")), ("₱", .both, mask("PHP")), ("₫", .both, mask("VND")), ("₦", .both, mask("NGN")),
            ("₺", .both, mask("TRY")), ("₽", .both, mask("RUB")), ("₪", .both, mask("ILS")), ("₴", .both, mask("UAH")),
            ("৳", .both, mask("BDT")),
            // Words and abbreviations.
            ("rs", .both, rupees), ("rs.", .prefix, rupees), ("rp", .prefix, mask("IDR")), ("rp.", .prefix, mask("IDR")),
            ("rm", .prefix, mask("MYR")), ("inr.", .prefix, mask("INR")), ("rmb", .both, mask("CNY")),
            ("人民币", .prefix, mask("CNY")), ("रु", .prefix, rupees), ("रु.", .prefix, rupees),
            ("baht", .suffix, mask("THB")), ("บาท", .suffix, mask("THB")), ("rupees", .suffix, rupees),
            ("rupee", .suffix, rupees), ("dollars", .suffix, mask("USD")), ("dollar", .suffix, mask("USD")),
            ("pounds", .suffix, mask("GBP")), ("pound", .suffix, mask("GBP")), ("euros", .suffix, mask("EUR")),
            ("euro", .suffix, mask("EUR")), ("yuan", .suffix, mask("CNY")), ("元", .suffix, mask("CNY")),
            ("块", .suffix, mask("CNY")), ("円", .suffix, mask("JPY")), ("ringgit", .suffix, mask("MYR")),
            ("rupiah", .suffix, mask("IDR")), ("pesos", .suffix, mask("PHP", "MXN")), ("peso", .suffix, mask("PHP", "MXN")),
            ("naira", .suffix, mask("NGN")), ("dirhams", .suffix, mask("AED")), ("dirham", .suffix, mask("AED")),
            ("रुपये", .suffix, rupees), ("रुपए", .suffix, rupees), ("đ", .suffix, mask("VND")),
        ]
        // ISO codes, before or after the number ("TRY" is left out: it is an English word).
        for code in codes where code != "TRY" { list.append((code.lowercased(), .both, mask(code))) }
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 }
        return list.map { text, place, mask in
            let bytes = Array(text.lowercased().utf8)
            return Marker(bytes: bytes, place: place, mask: mask, letterStart: isLetter(bytes[0]), letterEnd: isLetter(bytes[bytes.count - 1]))
        }.sorted { $0.bytes.count > $1.bytes.count }
    }()

    /// Multipliers after a number: the value is multiplied by `factor`. `attached`: only directly after
    /// the digits (`5k`, `5万`), else also after one space (`5 lakh`).
    struct Multiplier {
        var bytes: [UInt8]
        var factor: Double
        var attached: Bool
        var letterEnd: Bool
    }

    /// `multipliers` indexed by their first byte (`value` is the factor's bit pattern, `flagA` attached,
    /// `flagB` ends with a letter), in list order (longest first within a byte).
    static let multiplierIndex = _MarkerIndex(multipliers.map {
        _MarkerIndex.Entry(bytes: $0.bytes, value: $0.factor.bitPattern, flagA: $0.attached, flagB: $0.letterEnd, lastKey: false, firstKey: true)
    })

    static let multipliers: [Multiplier] = [
        ("thousand", 1e3, false), ("billion", 1e9, false), ("million", 1e6, false), ("crores", 1e7, false),
        ("crore", 1e7, false), ("lakhs", 1e5, false), ("lakh", 1e5, false), ("lacs", 1e5, false), ("lac", 1e5, false),
        ("万", 1e4, true), ("亿", 1e8, true), ("千", 1e3, true), ("bn", 1e9, false), ("mn", 1e6, false),
        ("k", 1e3, true), ("m", 1e6, true),
    ].map { text, factor, attached in
        let bytes = Array(text.utf8)
        return Multiplier(bytes: bytes, factor: factor, attached: attached, letterEnd: (bytes[bytes.count - 1] | 0x20) &- 0x61 < 26)
    }

    @inline(__always) static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 }

    /// The markers as flat arrays indexed by their last byte (prefix markers) and first byte (suffix
    /// markers), longest first within a byte, so a lookup compares only the few markers that can match.
    static let index = _MarkerIndex(markers.map {
        _MarkerIndex.Entry(bytes: $0.bytes, value: $0.mask, flagA: $0.letterStart, flagB: $0.letterEnd,
                           lastKey: $0.place != .suffix, firstKey: $0.place != .prefix)
    })

    /// The start and mask of the longest prefix marker that ends at `end` (`body[start..<end]`), not
    /// starting before `floor`, with a word boundary before it when it starts with a letter.
    @inline(__always)
    static func prefixMarker(endingAt end: Int, in body: UnsafeRawBufferPointer, floor: Int) -> (start: Int, mask: UInt64)? {
        guard end >= 1, end <= body.count else { return nil }
        let x = index
        let key = Int(_HostLists._lower(body[end - 1]))
        var k = Int(x.lastStart[key])
        let kEnd = Int(x.lastStart[key + 1])
        while k < kEnd {
            let m = Int(x.lastOrder[k])
            k += 1
            let s = end - Int(x.length[m])
            guard s >= floor, x.matches(m, body, at: s) else { continue }
            if x.flagA[m], s > 0, isLetter(body[s - 1]) { continue }
            return (s, x.value[m])
        }
        return nil
    }

    /// The end and mask of the longest suffix marker that starts at `start`, with a word boundary after
    /// it when it ends with a letter.
    @inline(__always)
    static func suffixMarker(startingAt start: Int, in body: UnsafeRawBufferPointer) -> (end: Int, mask: UInt64)? {
        guard start >= 0, start < body.count, let (m, e) = index.first(startingAt: start, in: body) else { return nil }
        return (e, index.value[m])
    }

    /// A prefix marker ending at `end`, or at `end - 1` when a space stands there.
    static func prefixMarker(before q: Int, in body: UnsafeRawBufferPointer, floor: Int) -> (start: Int, mask: UInt64)? {
        if let m = prefixMarker(endingAt: q, in: body, floor: floor) { return m }
        if q >= 1, body[q - 1] == 0x20 { return prefixMarker(endingAt: q - 1, in: body, floor: floor) }
        return nil
    }

    /// A suffix marker starting at `p`, or at `p + 1` when a space stands there.
    static func suffixMarker(after p: Int, in body: UnsafeRawBufferPointer) -> (end: Int, mask: UInt64)? {
        if let m = suffixMarker(startingAt: p, in: body) { return m }
        if p < body.count, body[p] == 0x20 { return suffixMarker(startingAt: p + 1, in: body) }
        return nil
    }
}

/// Words (currency markers, multipliers) laid out for lookups without copying: the bytes of all words in
/// one array, per word its offset, length, a 64-bit value and two flags, and two CSR indexes (byte → word
/// numbers, in list order, which is longest first): by last byte (the words with `lastKey`) and by first
/// byte (the words with `firstKey`).
final class _MarkerIndex: Sendable {
    struct Entry {
        var bytes: [UInt8]
        var value: UInt64
        var flagA: Bool
        var flagB: Bool
        var lastKey: Bool
        var firstKey: Bool
    }

    let bytes: [UInt8]
    let offset: [Int32]
    let length: [Int32]
    let value: [UInt64]
    let flagA: [Bool]
    let flagB: [Bool]
    let lastStart: [Int32]
    let lastOrder: [Int32]
    let firstStart: [Int32]
    let firstOrder: [Int32]

    init(_ entries: [Entry]) {
        var bytes: [UInt8] = []
        var offset: [Int32] = []
        for e in entries {
            offset.append(Int32(bytes.count))
            bytes += e.bytes
        }
        self.bytes = bytes
        self.offset = offset
        length = entries.map { Int32($0.bytes.count) }
        value = entries.map(\.value)
        flagA = entries.map(\.flagA)
        flagB = entries.map(\.flagB)
        func csr(_ key: (Entry) -> UInt8?) -> ([Int32], [Int32]) {
            var buckets = [[Int32]](repeating: [], count: 256)
            for (i, e) in entries.enumerated() { if let k = key(e) { buckets[Int(k)].append(Int32(i)) } }
            var start: [Int32] = [0]
            var order: [Int32] = []
            for b in buckets {
                order += b
                start.append(Int32(order.count))
            }
            return (start, order)
        }
        (lastStart, lastOrder) = csr { $0.lastKey ? $0.bytes[$0.bytes.count - 1] : nil }
        (firstStart, firstOrder) = csr { $0.firstKey ? $0.bytes[0] : nil }
    }

    /// The first word in list order (of those with `firstKey`) that stands at `body[s...]`, is not passed
    /// over by `skip`, and is not followed by an ASCII letter when it has `flagB`: its number and end.
    ///
    /// - Precondition: `s` < `body.count`.
    @inline(__always)
    func first(
        startingAt s: Int, in body: UnsafeRawBufferPointer, skip: (Int) -> Bool = { _ in false }
    ) -> (word: Int, end: Int)? {
        let key = Int(_HostLists._lower(body[s]))
        var k = Int(firstStart[key])
        let kEnd = Int(firstStart[key + 1])
        while k < kEnd {
            let m = Int(firstOrder[k])
            k += 1
            guard !skip(m), matches(m, body, at: s) else { continue }
            let end = s + Int(length[m])
            if flagB[m], end < body.count, _Currencies.isLetter(body[end]) { continue }
            return (m, end)
        }
        return nil
    }

    /// Whether marker `m` is at `body[p...]` (ASCII compared in lower case).
    @inline(__always)
    func matches(_ m: Int, _ body: UnsafeRawBufferPointer, at p: Int) -> Bool {
        let n = Int(length[m])
        guard p >= 0, p + n <= body.count else { return false }
        let o = Int(offset[m])
        var k = 0
        while k < n {
            if _HostLists._lower(body[p + k]) != bytes[o + k] { return false }
            k += 1
        }
        return true
    }
}
