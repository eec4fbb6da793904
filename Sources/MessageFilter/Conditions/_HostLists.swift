/// The host lists of the `urls:` condition (documented in docs/RULES.md §2.1).
enum _HostLists {
    /// General-purpose URL shorteners (anyone can make a link on them). Sorted; lowercase.
    static let shorteners: [String] = [
        "0rz.tw", "adf.ly", "bc.vc", "bit.do", "bit.ly", "bitly.com", "bl.ink", "buff.ly", "clck.ru", "cli.re",
        "cutt.ly", "dwz.cn", "goo.gl", "hyperurl.co", "is.gd", "j.mp", "kutt.it", "lihi.cc", "lihi1.com",
        "lii.bz", "me-qr.com", "ouo.io", "ow.ly", "po.st", "ppt.cc", "pse.is", "qrco.de", "rb.gy", "rebrand.ly",
        "reurl.cc", "risu.io", "s.id", "short.gy", "shorte.st", "shorturl.asia", "shorturl.at", "soo.gd",
        "suo.im", "t.cn", "t.co", "t.ly", "tiny.cc", "tiny.one", "tinyurl.com", "tny.im", "u.to", "urlz.fr",
        "v.gd", "vk.cc", "x.gd",
    ]

    /// Links that open a chat in a messaging app. Sorted; lowercase.
    static let messengers: [String] = [
        "chat.whatsapp.com", "invite.viber.com", "lin.ee", "line.me", "m.me", "open.kakao.com", "pf.kakao.com",
        "qm.qq.com", "signal.me", "t.me", "telegram.dog", "telegram.me", "wa.link", "wa.me", "api.whatsapp.com",
    ].sorted()

    /// Generic top-level domains that make a bare `name.tld` a URL on their own (besides the country codes):
    /// linkify-it's default list (biz com edu gov net org pro xxx aero asia coop info museum name shop; its
    /// `web` is no delegated TLD) and the generic ones SMS phishing uses most that are no English word a
    /// full stop typed without a space could run into (xyz, icu, vip, cfd, sbs, cyou, gdn, xin, mobi, ltd).
    /// Sorted; lowercase.
    static let bareTLDs: [String] = [
        "aero", "asia", "biz", "cfd", "com", "coop", "cyou", "edu", "gdn", "gov", "icu", "info", "ltd", "mobi",
        "museum", "name", "net", "org", "pro", "sbs", "shop", "vip", "xin", "xxx", "xyz",
    ]

    /// Generic top-level domains that are also words (`Oops.today`, `at.home.live`, `on.top`): a bare
    /// `name.tld` with one of them is a URL only with context a typo does not have: a path, query, fragment
    /// or port after the host, three labels or more, or a digit or `-` in the host (`win88.vip`,
    /// `yamato-tk.top/x`). Android's Linkify links every IANA TLD, linkify-it none of these without a
    /// scheme; this is the middle. Sorted; lowercase.
    static let contextTLDs: [String] = [
        "app", "bar", "bet", "bid", "blog", "bond", "buzz", "cam", "casa", "casino", "click", "cloud", "club", "date",
        "dev", "email", "fit", "fun", "help", "host", "ink", "life", "link", "live", "loan", "lol", "monster", "news",
        "online", "page", "quest", "rest", "site", "space", "store", "stream", "support", "tech", "today", "top",
        "website", "win", "work", "world", "zip",
    ]

    /// The two-letter (country-code) top-level domains of the root zone: a bare `name.xx` is a URL only
    /// when `xx` is one of them (`ok.so` is, `I.ll` is not). Taken from the Public Suffix List as Debian's
    /// `publicsuffix` package ships it (the last label of every rule, two letters). Sorted.
    static let countryTLDs: [String] = [
        "ac", "ad", "ae", "af", "ag", "ai", "al", "am", "ao", "aq", "ar", "as", "at", "au", "aw", "ax", "az", "ba",
        "bb", "bd", "be", "bf", "bg", "bh", "bi", "bj", "bm", "bn", "bo", "br", "bs", "bt", "bv", "bw", "by", "bz",
        "ca", "cc", "cd", "cf", "cg", "ch", "ci", "ck", "cl", "cm", "cn", "co", "cr", "cu", "cv", "cw", "cx", "cy",
        "cz", "de", "dj", "dk", "dm", "do", "dz", "ec", "ee", "eg", "er", "es", "et", "eu", "fi", "fj", "fk", "fm",
        "fo", "fr", "ga", "gb", "gd", "ge", "gf", "gg", "gh", "gi", "gl", "gm", "gn", "gp", "gq", "gr", "gs", "gt",
        "gu", "gw", "gy", "hk", "hm", "hn", "hr", "ht", "hu", "id", "ie", "il", "im", "in", "io", "iq", "ir", "is",
        "it", "je", "jm", "jo", "jp", "ke", "kg", "kh", "ki", "km", "kn", "kp", "kr", "kw", "ky", "kz", "la", "lb",
        "lc", "li", "lk", "lr", "ls", "lt", "lu", "lv", "ly", "ma", "mc", "md", "me", "mg", "mh", "mk", "ml", "mm",
        "mn", "mo", "mp", "mq", "mr", "ms", "mt", "mu", "mv", "mw", "mx", "my", "mz", "na", "nc", "ne", "nf", "ng",
        "ni", "nl", "no", "np", "nr", "nu", "nz", "om", "pa", "pe", "pf", "pg", "ph", "pk", "pl", "pm", "pn", "pr",
        "ps", "pt", "pw", "py", "qa", "re", "ro", "rs", "ru", "rw", "sa", "sb", "sc", "sd", "se", "sg", "sh", "si",
        "sj", "sk", "sl", "sm", "sn", "so", "sr", "ss", "st", "su", "sv", "sx", "sy", "sz", "tc", "td", "tf", "tg",
        "th", "tj", "tk", "tl", "tm", "tn", "to", "tr", "tt", "tv", "tw", "tz", "ua", "ug", "uk", "us", "uy", "uz",
        "va", "vc", "ve", "vg", "vi", "vn", "vu", "wf", "ws", "ye", "yt", "za", "zm", "zw",
    ]

    /// `countryTLDs` as a 26 × 26 bit map (first letter × 26 + second letter).
    static let countryTLDBits: [UInt64] = {
        var bits = [UInt64](repeating: 0, count: (26 * 26 + 63) / 64)
        for tld in countryTLDs {
            let u = Array(tld.utf8)
            let i = Int(u[0] - 0x61) * 26 + Int(u[1] - 0x61)
            bits[i >> 6] |= 1 << UInt64(i & 63)
        }
        return bits
    }()

    /// Whether the two ASCII letters `a`, `b` (any case) are a country-code top-level domain.
    @inline(__always)
    static func isCountryTLD(_ a: UInt8, _ b: UInt8) -> Bool {
        let i = Int((a | 0x20) &- 0x61) * 26 + Int((b | 0x20) &- 0x61)
        return countryTLDBits[i >> 6] & (1 << UInt64(i & 63)) != 0
    }

    /// `shorteners` as bytes, for allocation-free comparison.
    static let shortenerBytes: [[UInt8]] = shorteners.map { Array($0.utf8) }
    static let messengerBytes: [[UInt8]] = messengers.map { Array($0.utf8) }
    /// `bareTLDs` and `contextTLDs` as bytes.
    static let bareTLDBytes: [[UInt8]] = bareTLDs.map { Array($0.utf8) }
    static let contextTLDBytes: [[UInt8]] = contextTLDs.map { Array($0.utf8) }

    /// Whether `host` (ASCII, any case) equals one of `entries` (lowercase) or is a subdomain of one.
    static func hostMatches(_ host: UnsafeRawBufferPointer, _ entries: [[UInt8]]) -> Bool {
        var i = 0
        while i < entries.count {
            if _hostMatches(host, entries[i]) { return true }
            i += 1
        }
        return false
    }

    /// Whether `host` (any case) equals `entry` (lowercase) or ends with `.` + `entry`.
    @inline(__always)
    static func _hostMatches(_ host: UnsafeRawBufferPointer, _ entry: [UInt8]) -> Bool {
        let n = host.count
        let m = entry.count
        guard n >= m, m > 0 else { return false }
        if n > m, host[n - m - 1] != 0x2E { return false }
        var k = 0
        while k < m {
            if _lower(host[n - m + k]) != entry[k] { return false }
            k += 1
        }
        return true
    }

    /// Whether `label` (ASCII, any case) equals one of `entries` (lowercase).
    static func labelIn(_ label: UnsafeRawBufferPointer, _ entries: [[UInt8]]) -> Bool {
        var i = 0
        while i < entries.count {
            let e = entries[i]
            i += 1
            if e.count != label.count { continue }
            var k = 0
            while k < e.count, _lower(label[k]) == e[k] { k += 1 }
            if k == e.count { return true }
        }
        return false
    }

    @inline(__always) static func _lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
}
