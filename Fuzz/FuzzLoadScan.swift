// libFuzzer target: load arbitrary bytes as a serialized automaton, then scan with it.
//
// Compiled together with Sources/AhoCorasick/*.swift into one module (see Scripts/fuzz-aho.sh), so it can
// reach the internal checksum function. The first input byte picks a mode:
//   even: the rest is an image as is (exercises the header and checksum checks);
//   odd:  the rest is an image whose checksum is recomputed first, so that damaged tables get past the
//         checksum and only the structural checks stand between them and the search loops.
// Anything that loads is searched (single, batch, isMatch) over fixed haystacks; a crash, an
// AddressSanitizer report or a hang is a bug.

#if canImport(Glibc)
    import Glibc
#endif

let haystacks: [[UInt8]] = [
    Array("ushers she sells sea shells ΣΑΣ σας ไม่รับเงิน 中文 😀 abcd".utf8),
    // Longer than two AVX2 blocks, so the prefilter's vector loop runs and its tail ends at the end.
    Array("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxhers".utf8),
    [0xFF, 0xC3, 0x28, 0xE2, 0x82, 0x41, 0x61, 0x20, 0xF0, 0x9F, 0x98, 0x80],
    [],
    Array("a".utf8),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoadScan(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let mode = data[0]
    // Copy into an aligned buffer (what MappedBytes(copying:) does), dropping the mode byte.
    var bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if mode & 1 == 1 && bytes.count >= 32 {
        let checksum = bytes.withUnsafeBytes { raw in _imageChecksum(raw.baseAddress!, raw.count & ~7) }
        for k in 0..<8 { bytes[24 + k] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt64(k))) }
    }
    guard let automaton = try? AhoCorasick(serialized: MappedBytes(copying: bytes)) else { return 0 }
    var total = 0
    for haystack in haystacks {
        for match in automaton.matches(in: haystack) {
            precondition(match.start >= 0 && match.start <= match.end && match.end <= haystack.count)
            total &+= match.pattern
        }
        haystack.withUnsafeBytes { raw in
            _ = automaton.isMatch(in: raw)
            let spans = [0..<raw.count, 0..<(raw.count / 2), (raw.count / 2)..<raw.count, 0..<0, 0..<raw.count]
            spans.withUnsafeBufferPointer { s in
                automaton.forEachMatch(in: raw, spans: s) { _, match in total &+= match.end }
                if automaton.matchKind == .standard && automaton.caseFolding != .unicode {
                    // The bulk scan, its positions expanded as a caller does (`patterns(inMatchState:)` traps on a
                    // state out of range).
                    let scratch = UnsafeMutableBufferPointer<MatchStatePosition>.allocate(capacity: 64)
                    defer { scratch.deallocate() }
                    automaton.forEachMatchState(in: raw, spans: s, positions: scratch) { found in
                        for position in found {
                            precondition(position.span >= 0 && Int(position.span) < s.count)
                            precondition(position.end >= 1 && position.end <= s[Int(position.span)].count)
                            for pattern in automaton.patterns(inMatchState: Int(position.state)) {
                                total &+= automaton.patternLength(pattern)
                            }
                        }
                    }
                }
            }
        }
    }
    _ = automaton.serialize()
    return total == -1 ? 1 : 0
}

/// With FUZZ_SEEDS=folder, writes one seed image per engine × id width × prefilter × kind × folding
/// there before fuzzing.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    guard let folder = getenv("FUZZ_SEEDS").map({ String(cString: $0) }) else { return 0 }
    var index = 0
    for (engine, wide, prefilter) in [
        (EngineChoice.dfa, false, true), (.dfa, true, false), (.nfa, false, true), (.compact, false, true),
        (.compact, true, false),
    ] {
        for kind in [MatchKind.standard, .leftmostFirst, .leftmostLongest] {
            for folding in [CaseFolding.none, .ascii, .unicode] {
                var builder = AhoCorasickBuilder()
                builder.engine = engine
                builder._wideStateIDs = wide
                builder.prefilter = prefilter
                builder.matchKind = kind
                builder.caseFolding = folding
                guard let automaton = try? builder.build([
                    Pattern("he"), Pattern("she"), Pattern("hers", wholeWord: true), Pattern("σας"), Pattern("รับ"),
                ]) else { continue }
                for mode: UInt8 in [0, 1] {
                    let seed = [mode] + automaton.serialize()
                    let path = "\(folder)/seed-\(index)"
                    index += 1
                    if let file = fopen(path, "wb") {
                        _ = seed.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                        fclose(file)
                    }
                }
            }
        }
    }
    return 0
}
