/// One URL found in a body: byte offsets into the body as given.
struct _URLItem: Equatable {
    /// The URL's span (scheme, or `www.`, or the bare host, through port and path).
    var start: Int
    var end: Int
    /// The host's span (without brackets for an IPv6 host).
    var hostStart: Int
    var hostEnd: Int
    /// The host is an IPv4 address (as browsers read it after a scheme, a decimal dotted quad when bare) or a
    /// bracketed IPv6 address.
    var isIP: Bool
}

/// Finds URLs in a body, left to right, without allocating (docs/RULES.md §2.1 "URLs"):
///
/// - **scheme**: `http://` or `https://` (any case), then a host: labels of `[A-Za-z0-9-]` joined by single
///   dots, starting with a letter or digit, or a bracketed IPv6 address;
/// - **www**: `www.` (any case) followed by a host;
/// - **bare**: a host of at least two labels whose last label is a country-code top-level domain or on the
///   bare-TLD list, or on the word-like TLD list with context (a path or port after it, three labels, or a
///   digit or `-` in the host: `_HostLists.contextTLDs`),
///   written all in lower case or all in upper case (`bit.ly`, `B72KK.COM`; not `home.Now`), or an IPv4
///   dotted quad followed by `/` or a port;
///
/// each starting at an ASCII letter or digit not preceded by a letter, digit, `-`, `.`, `@`, `/` or `_`
/// (so `name@mail.com` is not a URL). Then an optional port (`:` and 1–5 digits) and an optional path
/// (`/`, `?` or `#` and the ASCII bytes 0x21–0x7E after it except `<`, `>`, `"`), without trailing
/// `.,;:!?)]}'`. A candidate that is not a URL is skipped as a whole.
struct _URLScanner {
    let body: UnsafeRawBufferPointer
    var position = 0

    init(_ body: UnsafeRawBufferPointer) { self.body = body }

    @inline(__always) static func isAlnum(_ b: UInt8) -> Bool { b &- 0x30 < 10 || (b | 0x20) &- 0x61 < 26 }
    @inline(__always) static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 }
    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inline(__always) static func isLabel(_ b: UInt8) -> Bool { isAlnum(b) || b == 0x2D }

    /// Whether a candidate may start at `p` (an alphanumeric byte not glued to a word, host or address).
    @inline(__always) func canStart(_ p: Int) -> Bool {
        guard Self.isAlnum(body[p]) else { return false }
        if p == 0 { return true }
        let b = body[p - 1]
        return !(Self.isAlnum(b) || b == 0x2D || b == 0x2E || b == 0x40 || b == 0x2F || b == 0x5F)
    }

    /// The next URL, or nil at the end of the body.
    ///
    /// Every URL holds a `.` in its host or a `:` after its scheme, and no candidate can start inside a run
    /// of host characters (`A–Z a–z 0–9 - .`). So the scan jumps from one `.` or `:` to the next, walks
    /// back to the start of the host run around it, and tries a candidate there: the same candidates, in the
    /// same order, as trying every byte, without looking at most bytes twice.
    mutating func next() -> _URLItem? {
        let n = body.count
        while position < n {
            guard let d = Self.nextDotOrColon(body, from: position) else {
                position = n
                return nil
            }
            // A "." that no label follows ends a sentence, and a ":" without "//" after it is no scheme:
            // neither can be part of a URL that an earlier "." or ":" did not already announce.
            if body[d] == 0x2E {
                guard d + 1 < n, Self.isLabel(body[d + 1]) else {
                    position = d + 1
                    continue
                }
            } else if !(d + 2 < n && body[d + 1] == 0x2F && body[d + 2] == 0x2F) {
                position = d + 1
                continue
            }
            var r = d
            while r > position, Self.isLabel(body[r - 1]) || body[r - 1] == 0x2E { r -= 1 }
            guard r < d, canStart(r) else {
                position = d + 1
                continue
            }
            let run = hostRunEnd(from: r)
            if let url = scheme(at: r) ?? wwwOrBare(at: r, run: run) {
                position = url.end
                return url
            }
            position = max(run.end, d + 1)  // skip the whole candidate
        }
        return nil
    }

    /// The offset of the first `.` or `:` at or after `from` (sixteen bytes at a time, then eight).
    @inline(__always)
    static func nextDotOrColon(_ body: UnsafeRawBufferPointer, from: Int) -> Int? {
        var i = from
        let n = body.count
        // Sixteen bytes compared at once (SSE2 / NEON: two compares, an or, a mask test), the eight-byte test
        // below finding the offset in the block that holds one (`mayHoldIPURL` on the budget's generated
        // corpus: 325 → 230 instructions per call; `_URLScanner.next` 12.8M → 11.7M instructions).
        let dots = SIMD16<UInt8>(repeating: 0x2E)
        let colons = SIMD16<UInt8>(repeating: 0x3A)
        while i + 16 <= n {
            let v = body.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            if any((v .== dots) .| (v .== colons)) { break }
            i += 16
        }
        while i + 8 <= n {
            let w = UInt64(littleEndian: body.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            // A zero byte in w ^ 0x2E… marks a "."; in w ^ 0x3A… a ":" (the classic has-zero-byte test).
            let a = w ^ 0x2E2E_2E2E_2E2E_2E2E
            let b = w ^ 0x3A3A_3A3A_3A3A_3A3A
            let za = (a &- 0x0101_0101_0101_0101) & ~a & 0x8080_8080_8080_8080
            let zb = (b &- 0x0101_0101_0101_0101) & ~b & 0x8080_8080_8080_8080
            // A borrow can flag a byte above a real match, never below: the lowest flag is exact
            // (little-endian loads: the lowest bits are the first byte).
            if za | zb != 0 { return i + ((za | zb).trailingZeroBitCount >> 3) }
            i += 8
        }
        while i < n {
            let c = body[i]
            if c == 0x2E || c == 0x3A { return i }
            i += 1
        }
        return nil
    }

    /// The maximal host run from `p`: labels of `[A-Za-z0-9-]` joined by single dots. Returns its end and
    /// the start of its last label and the label count.
    func hostRunEnd(from p: Int) -> (end: Int, lastLabel: Int, labels: Int) {
        let n = body.count
        var i = p
        var last = p
        var labels = 0
        while i < n, Self.isLabel(body[i]) {
            last = i
            labels += 1
            while i < n, Self.isLabel(body[i]) { i += 1 }
            if i + 1 < n, body[i] == 0x2E, Self.isLabel(body[i + 1]) { i += 1 } else { break }
        }
        return (i, last, labels)
    }

    /// Whether `s` (lowercase ASCII) is at `p`, any case.
    @inline(__always) func hasPrefix(_ s: StaticString, at p: Int) -> Bool {
        let m = s.utf8CodeUnitCount
        guard p + m <= body.count else { return false }
        let base = s.utf8Start
        var k = 0
        while k < m {
            if _HostLists._lower(body[p + k]) != base[k] { return false }
            k += 1
        }
        return true
    }

    func scheme(at p: Int) -> _URLItem? {
        var h: Int
        if hasPrefix("http://", at: p) { h = p + 7 } else if hasPrefix("https://", at: p) { h = p + 8 } else { return nil }
        let n = body.count
        guard h < n else { return nil }
        h = hostAfterUserinfo(h)
        var item = _URLItem(start: p, end: 0, hostStart: h, hostEnd: 0, isIP: false)
        if body[h] == 0x5B {  // "[" IPv6
            var i = h + 1
            while i < n, Self.isHexOrColonOrDot(body[i]) { i += 1 }
            guard i > h + 1, i < n, body[i] == 0x5D else { return nil }
            item.hostStart = h + 1
            item.hostEnd = i
            item.isIP = true
            h = i + 1
        } else {
            guard Self.isAlnum(body[h]) else { return nil }
            let run = hostRunEnd(from: h)
            item.hostEnd = run.end
            // A host that ends in a number is an IPv4 address or nothing: browsers refuse the URL
            // (`http://09.1.1.1/`: 09 is no octal number; `http://1.2.3.4.5/`, `http://256.1.1.1/`).
            if endsInNumber(run.lastLabel, run.end) {
                guard isWebIPv4(h, run.end) else { return nil }
                item.isIP = true
            }
            h = run.end
        }
        item.end = portAndPath(from: h)
        return item
    }

    func wwwOrBare(at p: Int, run: (end: Int, lastLabel: Int, labels: Int)) -> _URLItem? {
        guard run.labels >= 2 else { return nil }
        var item = _URLItem(start: p, end: 0, hostStart: p, hostEnd: run.end, isIP: false)
        if hasPrefix("www.", at: p) {
            item.isIP = false
        } else if isIPv4(p, run.end) && isWebIPv4(p, run.end) {
            guard run.end < body.count else { return nil }
            let b = body[run.end]
            guard b == 0x2F || (b == 0x3A && run.end + 1 < body.count && Self.isDigit(body[run.end + 1])) else { return nil }
            item.isIP = true
        } else {
            switch bareTLD(run.lastLabel, run.end) {
            case 0: return nil
            case 1: break
            default: guard bareContext(p, run) else { return nil }
            }
        }
        item.end = portAndPath(from: run.end)
        return item
    }

    /// Whether the bare host `body[p..<run.end]` has what makes a word-like TLD a link (`contextTLDs`): a path,
    /// query, fragment or port after it, three labels or more, or a digit or `-` in it.
    func bareContext(_ p: Int, _ run: (end: Int, lastLabel: Int, labels: Int)) -> Bool {
        if run.labels >= 3 { return true }
        if run.end < body.count {
            let b = body[run.end]
            if b == 0x2F || b == 0x3F || b == 0x23 { return true }
            if b == 0x3A, run.end + 1 < body.count, Self.isDigit(body[run.end + 1]) { return true }
        }
        var i = p
        while i < run.end {
            if Self.isDigit(body[i]) || body[i] == 0x2D { return true }
            i += 1
        }
        return false
    }

    /// Whether `body[s..<e]` is a top-level domain that makes a bare host a URL: 0 no, 1 yes (a country
    /// code or one of `bareTLDs`), 2 with context (one of `contextTLDs`; `bareContext`). Written all in
    /// lower or all in upper case.
    func bareTLD(_ s: Int, _ e: Int) -> Int {
        var lower = 0
        var upper = 0
        var i = s
        while i < e {
            let b = body[i]
            if b >= 0x61 && b <= 0x7A { lower += 1 } else if b >= 0x41 && b <= 0x5A { upper += 1 } else { return 0 }
            i += 1
        }
        guard lower == 0 || upper == 0 else { return 0 }
        if e - s == 2 { return _HostLists.isCountryTLD(body[s], body[s + 1]) ? 1 : 0 }
        let label = UnsafeRawBufferPointer(rebasing: body[s..<e])
        if _HostLists.labelIn(label, _HostLists.bareTLDBytes) { return 1 }
        return _HostLists.labelIn(label, _HostLists.contextTLDBytes) ? 2 : 0
    }

    /// Where the host starts in the authority at `h`: after the last `@` that a host follows
    /// (`https://paypal.com@evil.com/` goes to evil.com: what is before the `@` is a user name, RFC 3986
    /// §3.2.1, and browsers open the host after it), else at `h`. The authority runs to the first byte
    /// outside 0x21–0x7E or one of `/ ? # < > " \`.
    func hostAfterUserinfo(_ h: Int) -> Int {
        let n = body.count
        var end = h
        while end < n {
            let b = body[end]
            guard b >= 0x21, b <= 0x7E, b != 0x2F, b != 0x3F, b != 0x23, b != 0x3C, b != 0x3E, b != 0x22, b != 0x5C else { break }
            end += 1
        }
        var at = end - 1
        while at >= h {
            if body[at] == 0x40, at + 1 < n, startsHost(at + 1) { return at + 1 }
            at -= 1
        }
        return h
    }

    /// Whether a scheme URL's host can start at `i`: a letter or digit, or a bracketed IPv6 address.
    func startsHost(_ i: Int) -> Bool {
        let n = body.count
        if Self.isAlnum(body[i]) { return true }
        guard body[i] == 0x5B else { return false }
        var k = i + 1
        while k < n, Self.isHexOrColonOrDot(body[k]) { k += 1 }
        return k > i + 1 && k < n && body[k] == 0x5D
    }

    /// Whether the host's last label `body[s..<e]` is a number, so that browsers read the host as an IPv4
    /// address or refuse it (the WHATWG URL standard's "ends in a number"): all digits, or `0x` and hex digits.
    func endsInNumber(_ s: Int, _ e: Int) -> Bool {
        var i = s
        if e - s >= 2, body[s] == 0x30, body[s + 1] | 0x20 == 0x78 {
            i += 2
            while i < e, Self.isDigit(body[i]) || (body[i] | 0x20) &- 0x61 < 6 { i += 1 }
            return i == e
        }
        guard i < e else { return false }
        while i < e, Self.isDigit(body[i]) { i += 1 }
        return i == e
    }

    /// Whether `body[s..<e]` is an IPv4 address as browsers read a URL's host (the WHATWG URL standard's
    /// IPv4 parser): one to four parts joined by dots, each decimal, octal (a leading `0`) or hex (`0x`),
    /// every part but the last at most 255 and the last filling the bytes left (`3232235777`, `0xC0A80101`,
    /// `0300.0250.1.1`, `192.168.257` are all 192.168.1.1; `09` is no octal number, so `09.1.1.1` is none). A
    /// host of letters is never one.
    func isWebIPv4(_ s: Int, _ e: Int) -> Bool {
        var i = s
        var parts = 0
        var last: UInt64 = 0
        while i <= e {
            guard parts < 4 else { return false }
            var j = i
            while j < e, body[j] != 0x2E { j += 1 }
            guard j > i, let value = Self.webIPv4Part(body, i, j) else { return false }
            parts += 1
            if j < e {
                guard value <= 255 else { return false }
            } else {
                last = value
            }
            i = j + 1
        }
        guard parts >= 1 else { return false }
        return last < (UInt64(1) << (8 * UInt64(5 - parts)))
    }

    /// One part of a WHATWG IPv4 host: its value (nil when it is not a number, or past 2³²).
    static func webIPv4Part(_ body: UnsafeRawBufferPointer, _ s: Int, _ e: Int) -> UInt64? {
        var i = s
        var radix: UInt64 = 10
        if e - s >= 2, body[s] == 0x30, body[s + 1] | 0x20 == 0x78 {
            radix = 16
            i += 2
        } else if e - s >= 2, body[s] == 0x30 {
            radix = 8
            i += 1
        }
        var value: UInt64 = 0
        while i < e {
            let b = body[i]
            let d: UInt64
            if isDigit(b) { d = UInt64(b &- 0x30) } else if radix == 16, (b | 0x20) &- 0x61 < 6 { d = UInt64((b | 0x20) &- 0x61 + 10) } else { return nil }
            guard d < radix else { return nil }
            value = value * radix + d
            guard value <= 0xFFFF_FFFF else { return nil }
            i += 1
        }
        return value
    }

    /// Whether `body[s..<e]` is a dotted quad of numbers 0–255 (one to three digits each).
    func isIPv4(_ s: Int, _ e: Int) -> Bool {
        var i = s
        var parts = 0
        while i < e {
            var value = 0
            var digits = 0
            while i < e, Self.isDigit(body[i]) {
                value = value * 10 + Int(body[i] &- 0x30)
                digits += 1
                i += 1
                if digits > 3 { return false }
            }
            guard digits > 0, value <= 255 else { return false }
            parts += 1
            if i < e {
                guard body[i] == 0x2E else { return false }
                i += 1
            }
        }
        return parts == 4
    }

    @inline(__always) static func isHexOrColonOrDot(_ b: UInt8) -> Bool {
        isDigit(b) || (b | 0x20) &- 0x61 < 6 || b == 0x3A || b == 0x2E
    }

    /// The end of the URL: an optional port and path after the host, trailing punctuation removed.
    func portAndPath(from h: Int) -> Int {
        let n = body.count
        var i = h
        if i + 1 < n, body[i] == 0x3A, Self.isDigit(body[i + 1]) {
            i += 1
            var digits = 0
            while i < n, digits < 5, Self.isDigit(body[i]) {
                i += 1
                digits += 1
            }
        }
        guard i < n, body[i] == 0x2F || body[i] == 0x3F || body[i] == 0x23 else { return i }
        let pathStart = i
        i += 1
        while i < n {
            let b = body[i]
            guard b >= 0x21, b <= 0x7E, b != 0x3C, b != 0x3E, b != 0x22 else { break }
            i += 1
        }
        while i > pathStart + 1, Self.isTrailingPunctuation(body[i - 1]) { i -= 1 }
        // A path that is only trailing punctuation ("site.com?") is not part of the URL.
        if i == pathStart + 1, body[pathStart] != 0x2F { return pathStart }
        return i
    }

    @inline(__always) static func isTrailingPunctuation(_ b: UInt8) -> Bool {
        switch b {
        case 0x2E, 0x2C, 0x3B, 0x3A, 0x21, 0x3F, 0x29, 0x5D, 0x7D, 0x27: true
        default: false
        }
    }
}
