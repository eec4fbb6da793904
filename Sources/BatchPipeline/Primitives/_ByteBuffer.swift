// MARK: Internal API
//
// A growable byte buffer over one manually managed allocation, reused chunk after chunk so that the hot
// path allocates nothing per message: appends copy with memcpy into capacity reserved up front, and the
// buffer only grows (doubling) when a chunk produces more bytes than any chunk before it.

import ArchiveIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes glibc give large freed blocks back to the system at once (once per process; Linux only).
///
/// glibc raises its mmap threshold (up to 32 MiB) each time a large mapped block is freed, so the blocks a
/// long record needs afterwards come from the heap of the thread that asked (one per worker) and stay there
/// when freed: with 8 workers, 20 records of 60 MB held 515 MB instead of 269 MB. A fixed threshold of
/// 1 MiB keeps every block of 1 MiB or more in a mapping of its own, returned when freed. The normal path
/// reuses its buffers and allocates nothing per message, so this costs nothing there.
let _returnLargeBlocks: Void = {
    #if canImport(Glibc)
    // `mallopt` is in <malloc.h>, which the Glibc module does not import: looked up by name
    // (RTLD_DEFAULT is a null handle). M_MMAP_THRESHOLD is -3.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    if let symbol = dlsym(nil, "mallopt") { _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 1 << 20) }
    #endif
}()

/// A reusable, growable byte buffer. Not thread-safe; owned by one chunk slot or one worker.
///
/// ### Access to the bytes
/// Unsafe, fenced: the allocation never leaves this type except inside a scope. ``withUnsafeBytes(_:)``
/// lends the bytes `[0, count)` to a non-escaping closure, ``appendWithUnsafeSpace(upTo:_:)`` lends the free
/// space after them to a writer; no accessor returns a pointer. Everything else gets owned values
/// (``copyBytes(_:)``, ``string(_:)``). This holds for a chunk's input too: the jobs' workers (evaluate,
/// export, learn, the body loader) read a parsed chunk's records through `chunk.input.withUnsafeBytes`, one
/// scope per record or per chunk, and keep offsets, never pointers, between scopes.
/// - warning: Do not escape the pointer a closure is given: the storage moves when the buffer grows.
///
/// A closure may append to the buffer it reads (a parser decodes strings after a chunk's records) as long
/// as the appends fit the capacity reserved before the scope: then the storage does not move and the lent
/// pointer stays valid.
///
/// ### Invariants (``_checkInvariants()``, compiled with `-DBATCHPIPELINE_INTERNAL_CHECKS`)
/// - `0 <= count <= capacity`, `capacity >= 64`; `storage` holds `capacity` bytes.
/// - While a scope holds the bytes, the storage does not move (a resize traps).
final class _ByteBuffer: @unchecked Sendable {
    private var storage: UnsafeMutableRawPointer
    private(set) var capacity: Int
    private(set) var count = 0
    #if BATCHPIPELINE_INTERNAL_CHECKS
    /// Scopes holding a pointer into `storage` (``withUnsafeBytes(_:)``).
    private var lent = 0
    #endif

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        self.storage = _ByteBuffer.allocate(self.capacity)
        _checkInvariants()
    }

    deinit { free(storage) }

    /// Calls `body` with the bytes `[0, count)`. Appends inside `body` must fit the capacity reserved before
    /// it (the storage may not move; checked with `-DBATCHPIPELINE_INTERNAL_CHECKS`).
    /// - warning: Do not escape the pointer.
    @inline(__always)
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        lent += 1
        defer {
            lent -= 1
            _checkInvariants()
        }
        #endif
        return try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Calls `body` with the bytes `range` of `[0, count)`.
    /// - warning: Do not escape the pointer.
    @inline(__always)
    func withUnsafeBytes<R, E: Error>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { (all) throws(E) -> R in try body(UnsafeRawBufferPointer(rebasing: all[range])) }
    }

    /// A copy of the bytes `range` (all of them by default).
    func copyBytes(_ range: Range<Int>? = nil) -> [UInt8] {
        withUnsafeBytes { Array($0[range ?? 0..<$0.count]) }
    }

    /// The bytes `range` decoded as UTF-8 (ill-formed sequences repaired).
    func string(_ range: Range<Int>) -> String {
        withUnsafeBytes(range) { String(decoding: $0, as: UTF8.self) }
    }

    /// Lends `body` the free space after the bytes, at least `limit - count` bytes of it (growing first);
    /// `body` writes its bytes at the start and returns how many: they are appended.
    /// - warning: Do not escape the pointer.
    /// - Precondition: `limit > count`; `body` returns at most the space it was given.
    @inline(__always)
    func appendWithUnsafeSpace<E: Error>(upTo limit: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int) throws(E) {
        precondition(limit > count)
        reserve(limit - count)
        let room = UnsafeMutableRawBufferPointer(start: storage + count, count: limit - count)
        let n = try body(room)
        precondition(n >= 0 && n <= room.count)
        count += n
        _checkInvariants()
    }

    func removeAll() {
        count = 0
        _checkInvariants()
    }

    /// Keeps the first `newCount` bytes.
    /// - Precondition: `newCount <= count`.
    @inline(__always)
    func removeLast(from newCount: Int) {
        precondition(newCount >= 0 && newCount <= count)
        count = newCount
        _checkInvariants()
    }

    /// Takes `n` bytes off the front (the rest moves down).
    /// - Precondition: `n <= count`.
    func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count)
        let rest = count - n
        if rest > 0 { memmove(storage, storage + n, rest) }
        count = rest
        _checkInvariants()
    }

    /// Appends the bytes `[from, count)` of `other`.
    func append(_ other: _ByteBuffer, from: Int = 0) {
        other.withUnsafeBytes { append($0, from..<$0.count) }
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    /// Checks the invariants in the type's documentation; compiled to nothing without
    /// `-DBATCHPIPELINE_INTERNAL_CHECKS`.
    @inline(__always)
    func _checkInvariants() {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(count >= 0 && count <= capacity, "count \(count) outside [0, capacity \(capacity)]")
        precondition(capacity >= 64, "capacity \(capacity) below 64")
        #endif
    }

    // `malloc`/`realloc`/`free` rather than Swift's allocate: a large buffer lives in its own mapping, and
    // `realloc` moves its pages (`mremap` on Linux) instead of copying them, so growing a buffer that holds
    // a long record never has two copies of it alive, and shrinking gives the pages back at once.
    private static func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
        guard let p = malloc(bytes) else { outOfMemory(bytes) }
        return p
    }

    private func resize(to newCapacity: Int) {
        #if BATCHPIPELINE_INTERNAL_CHECKS
        precondition(lent == 0, "the buffer would move while a scope holds its bytes (reserve before the scope)")
        #endif
        guard let p = realloc(storage, newCapacity) else { Self.outOfMemory(newCapacity) }
        storage = p
        capacity = newCapacity
        _checkInvariants()
    }

    /// The pipeline's buffers are bounded by the memory formula (docs/RELIABILITY.md §3), not made to fail
    /// on every append: when even that much cannot be had, the run stops, but first removes its temporary
    /// files (as Ctrl-C does), so nothing unfinished is left beside the outputs.
    private static func outOfMemory(_ bytes: Int) -> Never {
        OutputFile.removeUnfinishedFiles()
        fatalError("out of memory allocating \(bytes) bytes (see --chunk-size, --max-record and --threads)")
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        resize(to: newCapacity)
    }

    /// Shrinks back to `limit` bytes of capacity when a huge record grew it beyond (memory stays bounded).
    func shrink(to limit: Int) {
        guard capacity > limit, count <= limit else { return }
        resize(to: max(64, limit))
    }

    @inline(__always)
    func append(_ raw: UnsafeRawBufferPointer) {
        guard raw.count > 0 else { return }
        reserve(raw.count)
        (storage + count).copyMemory(from: raw.baseAddress!, byteCount: raw.count)
        count += raw.count
        _checkInvariants()
    }

    /// Appends the bytes `range` of `source`.
    @inline(__always)
    func append(_ source: UnsafeRawBufferPointer, _ range: Range<Int>) {
        append(UnsafeRawBufferPointer(rebasing: source[range]))
    }

    @inline(__always)
    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        storage.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
        _checkInvariants()
    }

    @inline(__always)
    func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the decimal digits of `value`.
    @inline(__always)
    func appendDecimal(_ value: Int) {
        if value < 0 {
            append(UInt8(ascii: "-"))
            appendDecimal(0 - value)
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for any Int
        var n = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { scratch in
            repeat {
                scratch[23 - n] = UInt8(ascii: "0") &+ UInt8(v % 10)
                v /= 10
                n += 1
            } while v > 0
            append(UnsafeRawBufferPointer(rebasing: scratch[(24 - n)...]))
        }
    }

    /// Appends `text` as a JSON string (with quotes), escaping what JSON requires.
    func appendJSONString(_ raw: UnsafeRawBufferPointer) {
        append(UInt8(ascii: "\""))
        appendJSONEscaped(raw)
        append(UInt8(ascii: "\""))
    }

    /// Appends `raw` escaped as the inside of a JSON string (byte by byte, so it can be done in slices).
    func appendJSONEscaped(_ raw: UnsafeRawBufferPointer) {
        var runStart = 0
        for i in 0..<raw.count {
            let c = raw[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 {
                append(raw, runStart..<i)
                switch c {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    append("\\u00")
                    let hex: StaticString = "0123456789abcdef"
                    append(hex.utf8Start[Int(c >> 4)])
                    append(hex.utf8Start[Int(c & 15)])
                }
                runStart = i + 1
            }
        }
        append(raw, runStart..<raw.count)
    }

    /// Appends a delimited field: for CSV (`quoting`), quoted when it holds a comma, quote, CR or LF, with
    /// quotes doubled (RFC 4180); for TSV as it is.
    func appendDelimitedField(_ field: UnsafeRawBufferPointer, quoting: Bool, separator: UInt8 = UInt8(ascii: ",")) {
        let needsQuotes = quoting
            && field.contains { $0 == separator || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            append(field)
            return
        }
        append(UInt8(ascii: "\""))
        for b in field {
            if b == UInt8(ascii: "\"") { append(UInt8(ascii: "\"")) }
            append(b)
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends the value of an XML attribute (the text between its quotes): `&`, `<`, `>` and `"` as the
    /// entities `&amp;` `&lt;` `&gt;` `&quot;`, and tab, line feed and carriage return as character
    /// references (`&#9;` `&#10;` `&#13;`: written raw, an XML parser would turn them into spaces by
    /// attribute-value normalisation). Every other byte as it is; the caller refuses other C0 controls,
    /// which XML 1.0 cannot hold. The one XML escaper of the package (record writer, verdict attributes).
    func appendXMLAttributeValue(_ value: UnsafeRawBufferPointer) {
        for b in value {
            switch b {
            case UInt8(ascii: "&"): append("&amp;")
            case UInt8(ascii: "<"): append("&lt;")
            case UInt8(ascii: ">"): append("&gt;")
            case UInt8(ascii: "\""): append("&quot;")
            case 0x09, 0x0A, 0x0D:
                append("&#")
                appendDecimal(Int(b))
                append(UInt8(ascii: ";"))
            default: append(b)
            }
        }
    }

    func appendJSONString(_ text: String) {
        var text = text
        text.withUTF8 { appendJSONString(UnsafeRawBufferPointer($0)) }
    }

    /// `text` as a JSON string, quotes included (``appendJSONString(_:)-(String)``'s bytes).
    static func jsonString(_ text: String) -> [UInt8] {
        let b = _ByteBuffer(capacity: text.utf8.count + 8)
        b.appendJSONString(text)
        return b.copyBytes()
    }
}

/// `memchr` for a byte in `[from, to)` of `buffer`; returns its index or nil.
@inline(__always)
func _find(_ byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
    guard from < to, let base = buffer.baseAddress else { return nil }
    guard let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
    return UnsafeRawPointer(hit) - base
}

/// The last index of `byte` in `[from, to)` of `buffer`.
@inline(__always)
func _findLast(_ byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
    var i = to - 1
    while i >= from {
        if buffer[i] == byte { return i }
        i -= 1
    }
    return nil
}

/// The high bit of each byte of `w` that is zero (exact: no false positives from borrows).
@inline(__always)
func _zeroBytes(_ w: UInt64) -> UInt64 {
    let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
    return ~(((w & low7) &+ low7) | w) & 0x8080_8080_8080_8080
}

/// Counts `\n` bytes in `buffer[from..<to]`, 32 bytes at a time: each lane of a byte vector counts its
/// hits (at most 255 steps before the lanes are summed), then eight bytes at a time, then byte by byte.
/// 0.4 instructions per byte against 4.0 for the eight-byte loop alone (callgrind): every chunk's lines are
/// counted (by the thread that takes it, `_LineLedger`; docs/PERFORMANCE.md, "The scaling model").
func _countNewlines(_ buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Int {
    var n = 0
    var i = from
    while i + 32 <= to {
        var lanes = SIMD32<UInt8>()
        let end = i + min(255 * 32, (to - i) & ~31)
        while i < end {
            let hits = buffer.loadUnaligned(fromByteOffset: i, as: SIMD32<UInt8>.self) .== SIMD32<UInt8>(repeating: 0x0A)
            // Unsafe, fenced: a SIMDMask is its storage vector, a lane all ones (0xFF = −1) where true; this
            // is the one cast that compiles to a compare and a subtract (`replacing(with:where:)` does not).
            lanes &-= unsafeBitCast(hits, to: SIMD32<UInt8>.self)
            i += 32
        }
        n += Int(SIMD32<UInt16>(truncatingIfNeeded: lanes).wrappedSum())
    }
    while i + 8 <= to {
        n += _zeroBytes(buffer.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A).nonzeroBitCount
        i += 8
    }
    while i < to {
        if buffer[i] == 0x0A { n += 1 }
        i += 1
    }
    return n
}

/// The first index in `[from, to)` of `buffer` holding `a` or `b`, eight bytes at a time.
@inline(__always)
func _findEither(_ a: UInt8, _ b: UInt8, in buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
    var i = from
    #if _endian(little)
    let pa = UInt64(a) &* 0x0101_0101_0101_0101
    let pb = UInt64(b) &* 0x0101_0101_0101_0101
    while i + 8 <= to {
        let w = buffer.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        let hits = _zeroBytes(w ^ pa) | _zeroBytes(w ^ pb)
        if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
        i += 8
    }
    #endif
    while i < to {
        let c = buffer[i]
        if c == a || c == b { return i }
        i += 1
    }
    return nil
}
