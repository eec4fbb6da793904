import Foundation

/// Message bodies and keyword sets shared by the Matcher benchmark, `matcher-tool` and the peers script
/// (which reads the files `matcher-tool fixtures` writes), so that every engine scans the same bytes for
/// the same keywords.
///
/// Bodies have their line breaks replaced by spaces (so that a body is one line of the fixture files for
/// the peers); nothing else is changed.
public enum MatcherFixtures {
    /// The package root (the folder above Benchmarks/).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// `$SMSFILTER_CORPORA`, else `shared/corpora` beside the checkout.
    public static var corporaFolder: URL {
        if let path = ProcessInfo.processInfo.environment["SMSFILTER_CORPORA"] { return URL(fileURLWithPath: path) }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
    }

    /// The `body` of every record of every `*.jsonl.zst` corpus (decoded with the `zstd` command).
    public static func realBodies() -> [[UInt8]] {
        let folder = corporaFolder
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".jsonl.zst") }.sorted()
        var bodies: [[UInt8]] = []
        for name in names {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["zstd", "-dc", folder.appendingPathComponent(name).path]
            let pipe = Pipe()
            process.standardOutput = pipe
            guard (try? process.run()) != nil else { continue }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            for line in data.split(separator: UInt8(ascii: "\n")) {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                    let body = object["body"] as? String
                else { continue }
                bodies.append(clean(body))
            }
        }
        return bodies
    }

    static func clean(_ body: String) -> [UInt8] {
        Array(body.utf8).map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
    }

    /// Deterministic SMS-like bodies: English, Hinglish, Thai and Chinese templates with random fillers
    /// (mean about 120 bytes).
    public static func generatedBodies(count: Int = 100_000, seed: UInt64 = 42) -> [[UInt8]] {
        var rng = SplitMix(seed: seed)
        let names = ["Rahul", "Priya", "Somchai", "Ananya", "John", "Mei", "Arjun", "Nok", "Li Wei", "Sara"]
        let banks = ["HDFC Bank", "SBI", "ICICI", "KBank", "SCB", "Axis Bank", "Kotak", "BOC"]
        let shops = ["Amazon", "Flipkart", "Myntra", "Lazada", "Shopee", "Swiggy", "Zomato", "Taobao"]
        let words = [
            "hello", "meeting", "tomorrow", "please", "call", "me", "when", "free", "dinner", "tonight",
            "office", "traffic", "late", "sorry", "thanks", "ok", "see", "you", "soon", "love",
            "kal", "milte", "hain", "kya", "haal", "hai", "bhai", "ghar", "aa", "jao", "abhi", "nahi",
            "ครับ", "ค่ะ", "พรุ่งนี้", "เจอกัน", "ขอบคุณ", "กินข้าว", "ยัง", "ไป", "ไหน",
            "你好", "明天", "见", "谢谢", "吃饭", "了吗", "好的",
        ]
        func pick(_ items: [String]) -> String { items[Int(rng.next() % UInt64(items.count))] }
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(rng.next() % 10)) }) }
        func chat(_ n: Int) -> String { (0..<n).map { _ in pick(words) }.joined(separator: " ") }
        var bodies: [[UInt8]] = []
        bodies.reserveCapacity(count)
        for _ in 0..<count {
            let text: String
            switch rng.next() % 10 {
            case 0:
                text = "Dear Customer, your a/c XX\(digits(4)) is debited by Rs.\(digits(4)).00 on \(digits(2))-\(digits(2))-24 (UPI Ref \(digits(12))). Avl bal Rs.\(digits(5)). Not you? Call 1800\(digits(6)) -\(pick(banks))"
            case 1:
                text = "\(digits(6)) is your OTP for txn of INR \(digits(4)) at \(pick(shops)). Valid for 10 mins. Do not share it with anyone. -\(pick(banks))"
            case 2:
                text = "CONGRATS! You have WON a FREE gift voucher worth Rs \(digits(4)). Use promo code SAVE\(digits(2)) at \(pick(shops)). Click bit.ly/\(digits(5)) T&C apply"
            case 3:
                text = "Aapka order #\(digits(8)) \(pick(shops)) se dispatch ho gaya hai. Delivery kal tak. Track karein: \(pick(shops)).in/t/\(digits(6))"
            case 4:
                text = "รหัส OTP ของคุณคือ \(digits(6)) ใช้สำหรับยืนยันการทำรายการ ห้ามเปิดเผยรหัสนี้แก่ผู้อื่น \(pick(banks))"
            case 5:
                text = "ยินดีด้วย! คุณได้รับเครดิตฟรี \(digits(3)) บาท สมัครเลยที่ bit.ly/\(digits(5)) ด่วน จำนวนจำกัด"
            case 6:
                text = "您的验证码是\(digits(6))，用于\(pick(shops))登录，5分钟内有效，请勿泄露给他人。"
            case 7:
                text = "Hi \(pick(names)), \(chat(8 + Int(rng.next() % 10)))"
            case 8:
                text = "\(pick(names)): \(chat(4 + Int(rng.next() % 16)))"
            default:
                text = "Your \(pick(shops)) order \(digits(8)) has been shipped and will be delivered by \(digits(2))/\(digits(2)). Reply STOP to unsubscribe"
            }
            bodies.append(clean(text))
        }
        return bodies
    }

    /// 50 keywords of the kind a rule file has (English, Hinglish, Thai, Chinese).
    public static let keywords50: [String] = [
        "debited", "credited", "a/c", "txn of", "otp", "one time password", "do not share", "avl bal",
        "upi ref", "not you", "won", "winner", "free", "gift voucher", "promo code", "coupon", "cashback",
        "click", "bit.ly", "t&c apply", "unsubscribe", "reply stop", "offer", "discount", "sale",
        "order", "dispatch", "shipped", "delivered", "track", "kal tak", "aapka", "karein", "lottery",
        "loan", "pre-approved", "kyc", "blocked", "verify", "urgent", "รหัส otp", "ยินดีด้วย", "เครดิตฟรี",
        "สมัคร", "ห้ามเปิดเผย", "验证码", "请勿泄露", "中奖", "免费", "优惠",
    ]

    /// `count` keywords: `keywords50` then words of 4+ bytes of `bodies` (ASCII lowercased) by falling
    /// frequency (then bytes), skipping the 1,000 most frequent (`the`, `your`, `call`…), which no rule
    /// set would list and which would turn the benchmark into a match-reporting benchmark.
    public static func keywords(_ count: Int, from bodies: [[UInt8]]) -> [String] {
        var result = keywords50
        if count <= result.count { return Array(result.prefix(count)) }
        var frequency: [[UInt8]: Int] = [:]
        for body in bodies {
            for word in body.split(whereSeparator: { $0 == 0x20 || $0 == 0x2C || $0 == 0x2E || $0 == 0x3A }) {
                guard word.count >= 4 else { continue }
                frequency[word.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, default: 0] += 1
            }
        }
        let ranked = frequency.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.lexicographicallyPrecedes($1.key) }
        var seen = Set(result)
        for (word, _) in ranked.dropFirst(1000) where result.count < count {
            guard let s = String(validating: word, as: UTF8.self), !seen.contains(s) else { continue }
            seen.insert(s)
            result.append(s)
        }
        return result
    }

    /// `count` distinct random keywords (lowercase ASCII words of 4–12 letters, some two-word phrases).
    public static func randomKeywords(_ count: Int, seed: UInt64 = 7) -> [String] {
        var rng = SplitMix(seed: seed)
        var seen = Set<String>()
        var result: [String] = []
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        while result.count < count {
            let length = 4 + Int(rng.next() % 9)
            var word = String((0..<length).map { _ in letters[Int(rng.next() % 26)] })
            if rng.next() % 4 == 0 { word += " " + String((0..<4).map { _ in letters[Int(rng.next() % 26)] }) }
            if seen.insert(word).inserted { result.append(word) }
        }
        return result
    }

    /// The bodies laid end to end in one buffer (what a pipeline chunk looks like), with their spans.
    public static func chunk(_ bodies: [[UInt8]]) -> (buffer: [UInt8], spans: [Range<Int>]) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(bodies.reduce(0) { $0 + $1.count + 1 })
        var spans: [Range<Int>] = []
        spans.reserveCapacity(bodies.count)
        for body in bodies {
            let start = buffer.count
            buffer.append(contentsOf: body)
            spans.append(start..<buffer.count)
            buffer.append(0x0A)
        }
        return (buffer, spans)
    }

    /// Writes `bodies` one per line and `keywords` one per line.
    public static func write(bodies: [[UInt8]], to path: String) throws {
        var data = Data()
        for body in bodies {
            data.append(contentsOf: body)
            data.append(0x0A)
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    public static func write(keywords: [String], to path: String) throws {
        try (keywords.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// SplitMix64, as in TestSupport.
public struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
