// The sender conditions of the rules' evaluation: asked once per message where rules share them, `exact` and
// `prefix` lists compared by hash against the sender's key, built once per message.

extension Classifier {
    /// Whether the sender satisfies the rule set's sender condition `k`, for the message of generation `gen`. A
    /// condition several rules ask (the default rules' `unlessSender: *registered`, their carriers' entities) is
    /// asked once per message, its answer kept for the others; the others are asked as they come (keeping
    /// their answers cost more than it saved: `make budget`).
    @inline(__always)
    func _senderConditionHolds(_ k: Int, _ sender: UnsafeRawBufferPointer?, _ info: SenderInfo, generation gen: UInt32) -> Bool {
        let cache = conditionCache + k
        guard cache.pointee.shared else {
            return conditions[k]._withUnsafeGuaranteedRef { _senderMatches($0, sender, info, generation: gen) }
        }
        if cache.pointee.stamp == gen { return cache.pointee.answer }
        let holds = conditions[k]._withUnsafeGuaranteedRef { _senderMatches($0, sender, info, generation: gen) }
        cache.pointee.stamp = gen
        cache.pointee.answer = holds
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
