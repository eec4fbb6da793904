#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A zstd encoder that writes zstd's *seekable format*: independent frames of ``frameSize`` decoded bytes
/// each (the last one shorter), then a ``ZstdSeekTable`` in a skippable frame.
///
/// Any zstd decoder reads the result as one stream (`zstd -dc` decodes concatenated frames and skips
/// skippable ones); a reader that knows the format can decode the frames on several cores
/// (``ZstdParallelDecoder``) or start at any frame.
///
/// ```
///  write() ─▶ [frame buffer] ─full─▶ worker threads (one ZSTD_CCtx each, ZSTD_compress2 per frame)
///                                          │
///  fd ◀── frames in order ◀── done ◀───────┘           finish(): last frame, then the seek table
/// ```
///
/// ### Same bytes whatever the thread count
/// Every frame is compressed on its own by `ZSTD_compress2` with the same parameters, by whichever thread,
/// and frames are cut every ``frameSize`` bytes of input whatever the sizes of the `write` calls, so the
/// file is identical for 0, 1 or 64 workers and any write pattern.
///
/// ### Each frame
/// Carries its content size in its header and ends with the 32-bit XXH64 checksum of its content; the seek
/// table repeats the checksums (its descriptor's checksum flag is set).
///
/// ### Memory
/// Frame buffers (one being filled, one per worker) of ``frameSize`` input bytes and up to
/// `ZSTD_compressBound(frameSize)` output bytes each (only what a frame compresses to is touched), one
/// compression context per worker (or one in the calling thread), and 12 bytes per frame for the seek table.
/// The frames held at once are at most ``maxBufferedBytes`` of input, and at least one: `workers` is cut to
/// fit (`--frame-size 1G` compresses one frame at a time, in the calling thread: about 2 GiB of address
/// space, 1 GiB and the compressed frame resident). A buffer that cannot be allocated is an error
/// (`.encoderFailed`, saying to use a smaller frame size), never a crash.
///
/// Does not own the descriptor. Not thread-safe: one writer at a time (the workers are internal).
public final class ZstdSeekableEncoder {
    /// The default frame size: 4 MiB of decoded bytes (docs/PERFORMANCE.md, "Seekable output": what a
    /// frame costs in ratio and speed at level 1 against one frame).
    public static let defaultFrameSize = 4 << 20
    /// The frame sizes accepted: 64 KiB (smaller frames cost ratio and per-frame overhead) to 1 GiB (the seek
    /// table stores sizes in 32 bits).
    public static let frameSizes = (64 << 10)...(1 << 30)
    /// The most input bytes held in frame buffers at once (the frame being filled and those being compressed),
    /// whatever the worker count: 256 MiB, or one frame when a frame is larger.
    public static let maxBufferedBytes = 256 << 20

    /// The workers an encoder of `frameSize` uses when asked for `workers`: as many as fit, with the frame being
    /// filled, in ``maxBufferedBytes``.
    public static func workers(_ workers: Int, frameSize: Int) -> Int {
        max(0, min(workers, maxBufferedBytes / max(1, frameSize) - 1))
    }

    /// Decoded bytes per frame (the last frame holds the rest).
    public let frameSize: Int
    private let fd: Int32
    /// The context of the calling thread (no workers), else nil.
    private let inlineContext: _CContext?
    private let pool: _WorkerPool<_CContext>?
    /// Slots not in use.
    private var free: [_FrameSlot] = []
    /// Slots handed to the workers, in frame order.
    private var inFlight: [_FrameSlot] = []
    private var inFlightHead = 0
    /// The slot being filled.
    private var filling: _FrameSlot?
    private var allSlots: [_FrameSlot] = []
    /// Seek table entries, three words per frame: compressed size, decompressed size, checksum.
    private var table: [UInt32] = []
    private var failed: ZstdError?
    private var finished = false

    /// Frames written so far (the seek table not counted).
    public var framesWritten: Int { table.count / 3 }
    /// Compressed bytes written so far.
    public private(set) var compressedBytesWritten: Int64 = 0

    /// - Parameters:
    ///   - level: the zstd level (negative for the fast levels, 1…19, up to 22).
    ///   - workers: compression threads besides the caller (0: compress in the calling thread).
    ///   - frameSize: decoded bytes per frame, within ``frameSizes``.
    /// - Throws: ``ZstdError`` `.encoderFailed` when libzstd refuses the level or a context cannot be made.
    /// - Precondition: `frameSize` is within ``frameSizes``; `workers` ≥ 0.
    public init(fileDescriptor: Int32, level: Int32 = 3, workers: Int = 0, frameSize: Int = defaultFrameSize) throws(ZstdError) {
        precondition(Self.frameSizes.contains(frameSize), "frame size \(frameSize) is outside \(Self.frameSizes)")
        precondition(workers >= 0, "workers must be 0 or more")
        self.fd = fileDescriptor
        self.frameSize = frameSize
        let workers = Self.workers(workers, frameSize: frameSize)
        if workers == 0 {
            inlineContext = try _CContext(level: level, workers: 0, checksum: true)
            pool = nil
        } else {
            var contexts: [_CContext] = []
            for _ in 0..<workers { contexts.append(try _CContext(level: level, workers: 0, checksum: true)) }
            inlineContext = nil
            pool = _WorkerPool(contexts: contexts)
        }
        let slots = workers + 1
        for _ in 0..<slots { allSlots.append(_FrameSlot()) }
        free = allSlots.reversed()
    }

    deinit {
        pool?.stop()
        for slot in allSlots { slot.deallocate() }
    }

    /// Compresses `bytes`, writing every frame that is complete.
    ///
    /// - Throws: ``ZstdError`` `.writeFailed` or `.encoderFailed`; the encoder then stays failed.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ZstdError) {
        if let failed { throw failed }
        precondition(!finished, "ZstdSeekableEncoder.write after finish()")
        var offset = 0
        while offset < bytes.count {
            let slot = try slotToFill()
            let n = min(bytes.count - offset, frameSize - slot.count)
            guard slot.reserve(slot.count + n, upTo: frameSize) else {
                let error = Self.allocationFailure(frameSize, bytes: slot.count + n)
                failed = error
                throw error
            }
            (slot.input.baseAddress! + slot.count).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
            slot.count += n
            offset += n
            if slot.count == frameSize {
                filling = nil
                try submit(slot)
            }
        }
    }

    /// Writes the last frame (an empty one when nothing was written at all) and the seek table.
    public func finish() throws(ZstdError) {
        if let failed { throw failed }
        if finished { return }
        let nothingYet = framesWritten == 0 && inFlightHead == inFlight.count
        if let slot = filling {
            filling = nil
            if slot.count > 0 || nothingYet { try submit(slot) } else { free.append(slot) }
        } else if nothingYet {
            let slot = try slotToFill()
            filling = nil
            try submit(slot)
        }
        try guarded { () throws(ZstdError) in
            while inFlightHead < inFlight.count { try writeOldest() }
            guard framesWritten <= ZstdSeekTable.maxFrames else {
                throw ZstdError(.encoderFailed, detail: "more than \(ZstdSeekTable.maxFrames) frames: use a larger frame size")
            }
            var entries: [ZstdSeekTable.Entry] = []
            entries.reserveCapacity(framesWritten)
            for i in 0..<framesWritten {
                entries.append(.init(compressedSize: table[3 * i], decompressedSize: table[3 * i + 1], checksum: table[3 * i + 2]))
            }
            let bytes = ZstdSeekTable(entries: entries).serialized()
            let written: Result<Void, ZstdError> = bytes.withUnsafeBytes { raw in
                Result { () throws(ZstdError) in try writeAll(raw) }
            }
            try written.get()
        }
        finished = true
        pool?.stop()
    }

    // MARK: - Internals

    /// Runs `body`; on an error, remembers it (the encoder stays failed) and rethrows.
    private func guarded(_ body: () throws(ZstdError) -> Void) throws(ZstdError) {
        do throws(ZstdError) {
            try body()
        } catch {
            failed = error
            throw error
        }
    }

    /// The slot being filled, or a free one, or the oldest in-flight one once it is written.
    private func slotToFill() throws(ZstdError) -> _FrameSlot {
        if let filling { return filling }
        if free.isEmpty { try guarded { () throws(ZstdError) in try writeOldest() } }
        let slot = free.removeLast()
        slot.count = 0
        filling = slot
        return slot
    }

    /// Why a frame buffer of `bytes` could not be had.
    static func allocationFailure(_ frameSize: Int, bytes: Int) -> ZstdError {
        ZstdError(
            .encoderFailed,
            detail: "cannot allocate \(bytes >> 20) MiB for a frame of \(frameSize >> 20) MiB (not enough memory); use a smaller frame size")
    }

    /// Compresses a full (or the last) frame: in this thread, or on a worker.
    private func submit(_ slot: _FrameSlot) throws(ZstdError) {
        let bound = _Zstd.compressBound(slot.count)
        guard slot.ensureOutput(capacity: bound) else {
            let error = Self.allocationFailure(frameSize, bytes: bound)
            failed = error
            throw error
        }
        if let context = inlineContext {
            slot.result = slot.compress(with: context)
            slot.done = true
            inFlight.append(slot)
            try guarded { () throws(ZstdError) in try writeOldest() }
            return
        }
        guard let pool else { return }
        pool.monitor.locked {
            slot.done = false
            slot.result = nil
        }
        inFlight.append(slot)
        let monitor = pool.monitor
        pool.submit { context in
            let result = slot.compress(with: context)
            monitor.locked {
                slot.result = result
                slot.done = true
            }
            monitor.broadcastDone()
        }
        // Write whatever is already compressed, without waiting.
        try guarded { () throws(ZstdError) in
            while inFlightHead < inFlight.count, monitor.locked({ inFlight[inFlightHead].done }) { try writeOldest() }
        }
    }

    /// Waits for the oldest frame in flight, writes it and frees its slot.
    private func writeOldest() throws(ZstdError) {
        let slot = inFlight[inFlightHead]
        if let pool {
            pool.monitor.locked {
                while !slot.done { pool.monitor.waitForDone() }
            }
        }
        inFlightHead += 1
        if inFlightHead == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            inFlightHead = 0
        }
        free.append(slot)
        let size: Int
        switch slot.result! {
        case .failure(let error): throw error
        case .success(let value): size = value
        }
        // The frame ends with its 4-byte checksum (ZSTD_c_checksumFlag), the seek table's checksum.
        let frame = UnsafeRawBufferPointer(rebasing: slot.output[..<size])
        let checksum = UInt32(littleEndian: frame.loadUnaligned(fromByteOffset: size - 4, as: UInt32.self))
        try writeAll(frame)
        // size ≤ compressBound(1 GiB) < 2^32 and count ≤ frameSize ≤ 2^30: both fit 32 bits.
        table += [UInt32(size), UInt32(slot.count), checksum]
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws(ZstdError) {
        if case .failure(let code) = _Sys.writeAll(fd, bytes) {
            throw ZstdError(.writeFailed, errno: code.code)
        }
        compressedBytesWritten += Int64(bytes.count)
    }
}

/// One frame's buffers: the decoded bytes going in, the compressed frame coming out.
///
/// `@unchecked Sendable`: owned by the encoder's thread, except from `submit` until `done` is set under the
/// pool's lock, when the worker compressing it owns `input`, `count` (read only) and `output`.
///
/// The buffers come from `malloc`, so that one that cannot be had is an error, not a trap (Swift's
/// `allocate` stops the process), and grow with what a frame holds: a small output with a large frame
/// size costs what it writes, not the frame size.
final class _FrameSlot: @unchecked Sendable {
    private(set) var input = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    var count = 0
    private(set) var output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    // Guarded by the pool's monitor when there is a pool.
    var result: Result<Int, ZstdError>?
    var done = false

    /// Makes room for `needed` input bytes (doubling, at least 1 MiB, at most `limit`); false when it cannot be
    /// allocated (the bytes held so far are kept).
    func reserve(_ needed: Int, upTo limit: Int) -> Bool {
        guard input.count < needed else { return true }
        let capacity = min(limit, max(needed, 1 << 20, input.count * 2))
        guard let memory = _reallocHook(input.baseAddress, capacity) else { return false }
        input = UnsafeMutableRawBufferPointer(start: memory, count: capacity)
        return true
    }

    /// Allocates the output buffer once (its pages become resident only as frames fill them); false when it
    /// cannot be allocated.
    func ensureOutput(capacity: Int) -> Bool {
        if output.count < capacity {
            free(output.baseAddress)
            output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
            guard let memory = _reallocHook(nil, capacity) else { return false }
            output = UnsafeMutableRawBufferPointer(start: memory, count: capacity)
        }
        return true
    }

    func compress(with context: _CContext) -> Result<Int, ZstdError> {
        context.compressFrame(UnsafeRawBufferPointer(rebasing: input[..<count]), into: output)
    }

    func deallocate() {
        free(input.baseAddress)
        free(output.baseAddress)
    }
}
