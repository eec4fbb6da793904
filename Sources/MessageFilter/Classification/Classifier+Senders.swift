// The sender conditions of the rules' evaluation: each sender's parse and its conditions' answers kept for the
// messages of the same sender that follow (`_senderSlotInfo`), `exact` and `prefix` lists compared by hash against
// the sender's key, built once per message.

extension Classifier {
    /// The slots the senders seen lately are kept in (a power of two): a sender's bytes choose one
    /// (`_senderSlotIndex`), which keeps the last sender that chose it.
    static let senderSlotCount = 1024
    /// The longest sender kept (a longer one uses the slot `senderSlotCount`, its answers cleared per message).
    static let senderKeptBytes = 32

    /// The message's sender's parse (`SenderInfo.classify`), taken from its slot when the slot keeps the same
    /// bytes (a sender seen lately), else made and kept there; and the slot's answers of the sender conditions
    /// (`senderAnswers`) made the message's: kept from the messages before for the same bytes, none for new
    /// bytes. A message without a sender has a slot of its own (`senderSlotCount + 1`), whose answers are kept for
    /// the classifier's life; a sender longer than `senderKeptBytes` the slot `senderSlotCount`, whose answers
    /// are cleared here for each message. (An answer depends on the sender's bytes alone: the rule set and its
    /// default country code are the classifier's.)
    @inline(__always)
    func _senderSlotInfo(_ sender: UnsafeRawBufferPointer?) -> SenderInfo {
        let words = conditionWords
        guard let sender else {
            senderAnswers = senderBits + (Classifier.senderSlotCount + 1) &* 2 &* words
            return .unknown
        }
        guard let key = _SenderSlotKey(sender) else {
            let bits = senderBits + Classifier.senderSlotCount &* 2 &* words
            bits.update(repeating: 0, count: words)
            senderAnswers = bits
            return SenderInfo.classify(sender, defaultCountryCode: ruleSet.definition.defaultCountryCode)
        }
        let k = key.slot
        let slot = senderSlots + k
        let bits = senderBits + k &* 2 &* words
        senderAnswers = bits
        if slot.pointee.key == key { return slot.pointee.info }
        let info = SenderInfo.classify(sender, defaultCountryCode: ruleSet.definition.defaultCountryCode)
        slot.pointee.key = key
        slot.pointee.info = info
        bits.update(repeating: 0, count: words)  // (the answers of the sender the slot kept before: none asked yet)
        return info
    }

    /// Whether the sender satisfies the rule set's sender condition `k`, for the message of generation `gen`: the
    /// answer kept in the sender's slot (`senderAnswers`, `_senderSlotInfo`) when the condition was asked for the
    /// same sender before, else asked and kept there.
    @inline(__always)
    func _senderConditionHolds(_ k: Int, _ sender: UnsafeRawBufferPointer?, _ info: SenderInfo, generation gen: UInt32) -> Bool {
        let asked = senderAnswers + (k >> 6)
        let bit = UInt64(1) << UInt64(k & 63)
        if asked.pointee & bit != 0 { return (asked + conditionWords).pointee & bit != 0 }
        return _senderConditionAsked(k, sender, info, generation: gen)
    }

    /// Asks the rule set's sender condition `k` and keeps its answer in the sender's slot (`senderAnswers`).
    /// (Never inlined: `_senderConditionHolds` stays small enough for `_classifierFiringPosition` to be inlined in `_weigh`.)
    @inline(never)
    func _senderConditionAsked(_ k: Int, _ sender: UnsafeRawBufferPointer?, _ info: SenderInfo, generation gen: UInt32) -> Bool {
        let holds = conditions[k]._withUnsafeGuaranteedRef { _senderMatches($0, sender, info, generation: gen) }
        let asked = senderAnswers + (k >> 6)
        let bit = UInt64(1) << UInt64(k & 63)
        asked.pointee |= bit
        let answers = asked + conditionWords  // (the bit may hold the answer for the sender the slot kept before)
        answers.pointee = answers.pointee & ~bit | (holds ? bit : 0)
        return holds
    }

    /// Whether the sender satisfies `c`, its key made anew (the classifier keeps it per message: `generation:`).
    func _senderMatches(_ c: _CompiledSenderCondition, _ sender: UnsafeRawBufferPointer?, _ info: SenderInfo) -> Bool {
        senderKey.stamp = 0
        return _senderMatches(c, sender, info, generation: 0)
    }

    /// `senderKey` for `sender`: its bytes without the spaces and tabs around them and, for a phone number, its
    /// E.164 form (`+` and the digits of `info.number`) in `phone` (their hashes are made when an `exact` list
    /// first needs them).
    @inline(__always)
    func _makeSenderKey(_ sender: UnsafeRawBufferPointer, _ info: SenderInfo, generation gen: UInt32) {
        var lo = 0
        var hi = sender.count
        while lo < hi, sender[lo] == 0x20 || sender[lo] == 0x09 { lo += 1 }
        while hi > lo, sender[hi - 1] == 0x20 || sender[hi - 1] == 0x09 { hi -= 1 }
        senderKey.lo = lo
        senderKey.hi = hi
        senderKey.phoneCount = 0
        if info.kind == .phoneNumber {
            // The digits backwards from the end of the 24 bytes, two per division while more than two are left
            // (half the divisions of one per digit: ~130 instructions fewer per phone-number sender, `make
            // budget`), then "+" and the digits moved to the front.
            var digits = info.number
            var len = 0
            while digits >= 100 && len < 22 {
                let q = digits / 100
                let pair = Int(truncatingIfNeeded: digits &- q &* 100)
                let tens = (pair &* 103) >> 10  // pair / 10 for 0 ≤ pair < 100
                phone[23 - len] = UInt8(truncatingIfNeeded: pair &- tens &* 10) &+ 0x30
                phone[22 - len] = UInt8(truncatingIfNeeded: tens) &+ 0x30
                digits = q
                len += 2
            }
            repeat {
                phone[23 - len] = UInt8(truncatingIfNeeded: digits % 10) &+ 0x30
                digits /= 10
                len += 1
            } while digits > 0 && len < 23
            phone[0] = 0x2B
            var i = 0
            while i < len {
                phone[1 + i] = phone[24 - len + i]
                i += 1
            }
            senderKey.phoneCount = len + 1
        }
        senderKey.stamp = gen
    }

    /// Whether the sender satisfies `c` (the sender's key in `senderKey`, made when a list first needs it for the
    /// message of generation `gen`). Compares without allocating; an `exact` list is looked up by hash.
    func _senderMatches(_ c: _CompiledSenderCondition, _ sender: UnsafeRawBufferPointer?, _ info: SenderInfo,
                        generation gen: UInt32) -> Bool {
        if c.kindMask != 0, c.kindMask & _CompiledSenderCondition.kindBit(info.kind) == 0 { return false }
        if !c.suffixes.isEmpty {
            guard let s = info.traiSuffix else { return false }
            var found = false
            var i = 0
            while i < c.suffixes.count {
                if c.suffixes[i] == s { found = true }
                i += 1
            }
            if !found { return false }
        }
        if !c.countryCodes.isEmpty {
            guard info.kind == .phoneNumber else { return false }
            var found = false
            var i = 0
            while i < c.countryCodes.count {
                if c.countryCodes[i] == info.countryCode { found = true }
                i += 1
            }
            if !found { return false }
        }
        guard let sender else { return !c.needsSenderBytes }
        if !c.entities.isEmpty || !c.plainEntities.isEmpty {
            guard info.isTRAIHeader else { return false }
            let e = UnsafeRawBufferPointer(rebasing: sender[info.traiEntity])
            var found = !c.plainEntities.isEmpty && _listHolds(c.plainEntities, c.plainEntityHashes, e, _Fold.hash(e))
            var i = 0
            // (Quick tests first: the length of a pattern without `*`, a first byte that is not a wildcard.)
            let first: UInt8 = e.isEmpty ? 0 : (e[0] &- 0x61 < 26 ? e[0] & 0xDF : e[0])
            while i < c.entities.count, !found {
                let length = c.entityLengths[i]
                let head = c.entityFirstBytes[i]
                if length < 0 || length == e.count, head == 0 || head == first, _Fold.glob(e, c.entities[i]) { found = true }
                i += 1
            }
            if !found { return false }
        }
        if c.exact.isEmpty && c.prefix.isEmpty { return true }
        if senderKey.stamp != gen || gen == 0 { _makeSenderKey(sender, info, generation: gen) }
        let trimmed = UnsafeRawBufferPointer(rebasing: sender[senderKey.lo..<senderKey.hi])
        let n = senderKey.phoneCount
        let phone = UnsafeRawBufferPointer(start: self.phone, count: n)
        if !c.exact.isEmpty {
            if senderKey.hashStamp != gen || gen == 0 {
                senderKey.hash = _Fold.hash(trimmed)
                senderKey.phoneHash = n > 0 ? _Fold.hash(phone) : 0
                senderKey.hashStamp = gen
            }
            if _listHolds(c.exact, c.exactHashes, trimmed, senderKey.hash)
                || (n > 0 && _listHolds(c.exact, c.exactHashes, phone, senderKey.phoneHash)) { return true }
        }
        var i = 0
        while i < c.prefix.count {
            if _Fold.equal(trimmed, c.prefix[i], prefix: true) || (n > 0 && _Fold.equal(phone, c.prefix[i], prefix: true)) {
                return true
            }
            i += 1
        }
        return false
    }

    /// Whether `bytes` (of hash `h`, `_Fold.hash`) equals one of `entries` (upper-cased, ordered by their
    /// `hashes`), ASCII case-insensitively: the first entry of hash at least `h` found by binary search, then
    /// those of hash `h` compared.
    @inline(__always)
    func _listHolds(_ entries: [[UInt8]], _ hashes: [UInt64], _ bytes: UnsafeRawBufferPointer, _ h: UInt64) -> Bool {
        var lo = 0
        var hi = hashes.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if hashes[mid] < h { lo = mid + 1 } else { hi = mid }
        }
        while lo < hashes.count, hashes[lo] == h {
            if _Fold.equal(bytes, entries[lo], prefix: false) { return true }
            lo += 1
        }
        return false
    }
}

/// The sender of the message being decided as `exact` and `prefix` lists compare it (`Classifier._makeSenderKey`),
/// valid when `stamp` is the message's generation.
struct _SenderKey {
    var stamp: UInt32 = 0
    /// The sender's bytes without the spaces and tabs around them.
    var lo = 0
    var hi = 0
    /// The length of the E.164 form in `Classifier.phone` (0: the sender is not a phone number).
    var phoneCount = 0
    /// The hashes (`_Fold.hash`) of the trimmed sender and of the E.164 form, valid when `hashStamp` is the
    /// message's generation.
    var hashStamp: UInt32 = 0
    var hash: UInt64 = 0
    var phoneHash: UInt64 = 0
}

/// A sender's bytes, up to `Classifier.senderKeptBytes` of them, as the slots compare them: the count and four
/// words that hold every byte (for 8 bytes or more, the words at 0, 8, 16 and at the count − 8, the middle two no
/// further than that; for fewer, the bytes packed into `a`), so that two keys are equal exactly when the bytes are.
struct _SenderSlotKey: Equatable {
    var count: Int
    var a: UInt64
    var b: UInt64
    var c: UInt64
    var d: UInt64

    static let empty = _SenderSlotKey(count: -1, a: 0, b: 0, c: 0, d: 0)

    init(count: Int, a: UInt64, b: UInt64, c: UInt64, d: UInt64) {
        self.count = count
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }

    /// The key of `bytes`, nil when they are more than `Classifier.senderKeptBytes`.
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n <= Classifier.senderKeptBytes else { return nil }
        var a: UInt64 = 0
        var b: UInt64 = 0
        var c: UInt64 = 0
        var d: UInt64 = 0
        if n > 0, let p = bytes.baseAddress {
            if n >= 8 {
                a = p.loadUnaligned(as: UInt64.self)
                b = p.loadUnaligned(fromByteOffset: min(8, n &- 8), as: UInt64.self)
                c = p.loadUnaligned(fromByteOffset: min(16, n &- 8), as: UInt64.self)
                d = p.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            } else if n >= 4 {
                a = UInt64(p.loadUnaligned(as: UInt32.self)) | UInt64(p.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)) << 32
            } else {
                a = UInt64(p.load(as: UInt8.self)) | UInt64(p.load(fromByteOffset: n >> 1, as: UInt8.self)) << 8
                    | UInt64(p.load(fromByteOffset: n &- 1, as: UInt8.self)) << 16
            }
        }
        self.init(count: n, a: a, b: b, c: c, d: d)
    }

    /// The slot of this key, below `Classifier.senderSlotCount`.
    var slot: Int {
        @inline(__always) get {
            var h = a &* 0x9E37_79B9_7F4A_7C15
            h ^= b &* 0xC2B2_AE3D_27D4_EB4F
            h ^= c &* 0x1656_67B1_9E37_79F9
            h ^= d &* 0x85EB_CA77_C2B2_AE63
            h ^= UInt64(bitPattern: Int64(count))
            h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: h >> UInt64(64 - Classifier.senderSlotCount.trailingZeroBitCount))
        }
    }
}

/// A sender kept by the classifier (`Classifier.senderSlots`): its bytes' key and its parse.
struct _SenderSlot {
    var key = _SenderSlotKey.empty
    var info = SenderInfo.unknown
}
