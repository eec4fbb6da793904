import CZstd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A zstd decoder that decodes the frames of a multi-frame stream on several threads and hands out the
/// decoded bytes in order, through the same `read(into:)` as ``ZstdDecoder``.
///
/// Multi-frame streams are what `pzstd`, `zstd --format` with frame splitting, concatenated `.zst` files and
/// the seekable format (``ZstdSeekableEncoder``, `smsfilter classify --frame-size`) produce. The frames are
/// found without decoding: the calling thread reads the input once, in order, walking frame and block
/// headers (and skipping skippable frames, such as pzstd's size hints and the seek table), and hands each
/// frame whose decoded size is bounded to a worker thread, which decodes it in one pass into a buffer of
/// its own; `read(into:)` copies the buffers out in input order.
///
/// ```
///   fd ──read()──▶ walker (frame + block headers) ──frame──▶ workers × threads (one ZSTD_DCtx each)
///                      │                                           │
///                      └─large frame / anything odd─▶ serial ─┐    │
///   caller's buffer ◀────────────── in input order ◀──────────┴────┘
/// ```
///
/// ### The same contract as `ZstdDecoder`
/// - Single-frame archives take today's path: a frame larger than ``Options/maxFrameBytes`` (or of
///   unknown size whose blocks may exceed it), and anything the walker does not fully understand, is decoded
///   by a streaming context in the calling thread, exactly as ``ZstdDecoder`` decodes it; with
///   `threads == 1` this *is* a `ZstdDecoder`.
/// - The same errors at the same offsets: `.truncated` at the compressed offset where the input ends,
///   `.corrupt` with the block (or, for a wrong checksum, the frame) in ``ZstdError/damagedRange``,
///   `.windowTooLarge`, `.readFailed`. Every byte decoded before the error is handed out first (all the
///   frames before the damaged one, and the blocks of the damaged frame before the damaged block); then the
///   decoder stays failed. The tests compare it with `ZstdDecoder` at many damaged and truncated offsets.
/// - Input that is not zstd passes through unchanged.
///
/// ### Memory
/// At most ``Options/framesInFlight`` frames (default `threads + 2`) are read ahead, each holding its
/// compressed bytes and its decoded bytes (at most ``Options/maxFrameBytes``, default 32 MiB; 4 MiB for
/// the default `--frame-size`), plus one decoding context per thread and a 256 KiB read buffer.
///
/// Not thread-safe: one reader at a time (the workers are internal). The walker and the copying run in the
/// calling thread, inside `read(into:)`.
public final class ZstdParallelDecoder: _PathDecoder {
    /// Settings of a parallel decoder.
    public struct Options: Sendable, _ClosingOptions {
        /// The largest decoding window a frame may ask for, as ``ZstdDecoder/Options/maxWindowBytes``.
        public var maxWindowBytes: Int
        /// Whether the decoder closes the file descriptor when it is done with it.
        public var closeWhenDone: Bool
        /// Decoding threads (1: a plain ``ZstdDecoder``, no thread is started).
        public var threads: Int
        /// The largest decoded size of a frame decoded by a worker; larger frames, and frames of unknown
        /// size whose blocks could exceed it, are decoded serially by the calling thread.
        public var maxFrameBytes: Int
        /// Frames read ahead at most (nil: `threads + 2`).
        public var framesInFlight: Int?
        /// With `threads == 1`: decode as ``ZstdDecoder`` does (`true`, the default), or walk the frames and
        /// decode them in the calling thread one unit (frame header, block, checksum) per libzstd call, as the
        /// serial path does (`false`). The walk hands out every block before a damaged one and the whole frame
        /// before a wrong checksum, whatever the sizes of the caller's reads; `ZstdDecoder` loses the blocks
        /// decoded by the call that fails (libzstd keeps no output of a failing call), so what it hands out
        /// before the damage depends on the read sizes. The record reader sets `false`, so that its output on
        /// a damaged archive is the same whatever `--threads` is.
        public var streamingWhenSingleThreaded: Bool
        /// The file offset where the input ends: the decoder reads the descriptor up to there and treats it as
        /// the end of the stream (a range of frames of a file, ``init(path:range:options:)``); nil: the end of
        /// the descriptor. Not with the streaming single-thread decoder (`threads == 1` and
        /// `streamingWhenSingleThreaded`): an end always walks the frames.
        public var inputEnd: Int64?

        public init(
            maxWindowBytes: Int = 128 << 20, closeWhenDone: Bool = false, threads: Int = 2, maxFrameBytes: Int = 32 << 20,
            framesInFlight: Int? = nil, streamingWhenSingleThreaded: Bool = true, inputEnd: Int64? = nil
        ) {
            self.maxWindowBytes = maxWindowBytes
            self.closeWhenDone = closeWhenDone
            self.threads = threads
            self.maxFrameBytes = maxFrameBytes
            self.framesInFlight = framesInFlight
            self.streamingWhenSingleThreaded = streamingWhenSingleThreaded
            self.inputEnd = inputEnd
        }
    }

    private enum Mode { case sniffing, single(ZstdDecoder), plain, frames }

    private let fd: Int32
    private let options: Options
    private var mode = Mode.sniffing
    private let windowLogMax: Int32
    /// The file offset of the first byte read (nil when `fd` cannot seek): damage is read back with `pread`.
    /// Every offset the decoder reports (errors, ``compressedBytesConsumed``) is a file offset: it counts from
    /// here (from 0 for a pipe).
    private let startOffset: Int64?
    /// Bytes read from `fd` before the decoder was made (to recognise the input), decoded first.
    private var initialBytes: [UInt8]
    private var reader: _InputReader?
    private var walker: _FrameWalker
    private var walkerFinished = false
    private var free: [_DecodeSlot] = []
    private var queue: [_DecodeSlot] = []
    private var queueHead = 0
    private var pool: _WorkerPool<_DContext>?
    private let cancelled = _CancelFlag()
    // The serial path (see `readSerial`), as in `ZstdDecoder`.
    private var serialContext: _DContext?
    private var serialHint = 0
    /// The last serial call filled the caller's buffer: libzstd may still hold decoded bytes of that unit.
    private var serialMayHoldOutput = false
    private var serialFrameStart: Int64 = 0
    private var consumedOffset: Int64 = 0
    private var pendingError: ZstdError?
    private var finished = false
    private var closed = false

    /// The path this decoder reads, for error messages (nil for stdin or a bare descriptor).
    public let path: String?
    /// Frames decoded by the worker threads so far (the rest went through the serial path).
    public private(set) var parallelFrames = 0
    /// The most items (frames, serial pieces) queued at once (for the tests of the memory bound).
    private(set) var peakItemsInFlight = 0

    /// Decodes the stream read from `fileDescriptor` (stdin is `0`).
    ///
    /// - Parameter initialBytes: bytes already read from `fileDescriptor` (to recognise the input, see
    ///   ``InputProbe``): the stream is `initialBytes` followed by the rest of the descriptor, as for
    ///   ``ZstdDecoder``. At most 64 KiB.
    /// - Throws: ``ZstdError`` when a decoding context cannot be made.
    /// - Precondition: `options.threads` ≥ 1, `options.maxFrameBytes` ≥ 1, `framesInFlight` (when given) ≥ 1.
    public init(
        fileDescriptor: Int32, path: String? = nil, initialBytes: [UInt8] = [], options: Options = Options()
    ) throws(ZstdError) {
        precondition(options.threads >= 1, "ZstdParallelDecoder needs at least one thread")
        precondition(options.maxFrameBytes >= 1 && (options.framesInFlight ?? 1) >= 1)
        precondition(initialBytes.count <= 64 << 10, "ZstdParallelDecoder: at most 64 KiB of initial bytes")
        self.fd = fileDescriptor
        self.options = options
        self.path = path
        self.initialBytes = initialBytes
        let logMax = _DContext.windowLog(maxWindowBytes: options.maxWindowBytes)
        windowLogMax = logMax
        startOffset = _Sys.currentOffset(fileDescriptor).map { $0 - Int64(initialBytes.count) }
        consumedOffset = startOffset ?? 0
        serialFrameStart = consumedOffset
        walker = _FrameWalker(maxFrameBytes: options.maxFrameBytes, maxWindow: UInt64(1) << UInt64(logMax), pieceBytes: 1 << 20)
        if options.threads == 1 && options.streamingWhenSingleThreaded && options.inputEnd == nil {
            mode = .single(
                try ZstdDecoder(
                    fileDescriptor: fileDescriptor, path: path, initialBytes: initialBytes,
                    options: .init(maxWindowBytes: options.maxWindowBytes, closeWhenDone: false)))
            self.initialBytes = []
        }
    }

    /// Opens `path` and decodes it; the decoder closes the file when it is deallocated.
    public convenience init(path: String, options: Options = Options()) throws(ZstdError) {
        try self.init(opening: path, options: options)
    }

    /// Decodes the frames of the file at `path` that lie in `range` (compressed offsets): the stream starts at
    /// `range.lowerBound` and ends at `range.upperBound`, which should be frame boundaries (``ZstdFrameIndex``);
    /// offsets in errors are the file's. The decoder closes the file when it is deallocated.
    ///
    /// - Precondition: `range.lowerBound` ≥ 0.
    public convenience init(path: String, range: Range<Int64>, options: Options = Options()) throws(ZstdError) {
        precondition(range.lowerBound >= 0, "a range of a file starts at offset 0 or later")
        var options = options
        options.inputEnd = range.upperBound
        try self.init(opening: path, at: range.lowerBound, options: options)
    }

    deinit {
        if let pool {
            pool.monitor.locked { cancelled.set() }
            pool.stop()
        }
        if options.closeWhenDone && !closed { _Sys.close(fd) }
    }

    /// Compressed bytes whose decoded bytes have all been handed out (for a progress line: it grows by a
    /// frame at a time on the parallel path).
    public var compressedBytesConsumed: Int64 {
        if case .single(let decoder) = mode { return decoder.compressedBytesConsumed }
        return consumedOffset
    }

    /// Whether the input was zstd (`true`), plain (`false`), or not looked at yet (`nil`).
    public var isCompressed: Bool? {
        switch mode {
        case .sniffing: return nil
        case .single(let decoder): return decoder.isCompressed
        case .plain: return false
        case .frames: return true
        }
    }

    /// Fills `buffer` with the next decoded bytes, as ``ZstdDecoder/read(into:)``.
    ///
    /// - Returns: the number of bytes written at the start of `buffer`: at least 1 while there is data,
    ///   0 at the end of the stream (and on every call after it).
    /// - Throws: ``ZstdError`` as described on the type; bytes decoded before an error are returned first.
    /// - Precondition: `buffer` is not empty.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        precondition(buffer.count > 0, "ZstdParallelDecoder.read(into:) needs a non-empty buffer")
        if case .single(let decoder) = mode { return try decoder.read(into: buffer) }
        if let error = pendingError { throw error }
        if finished { return 0 }
        if case .sniffing = mode { sniff() }
        if case .plain = mode { return try readPlain(into: buffer) }
        return try readFrames(into: buffer)
    }

    /// Reads until `buffer` is full or the stream ends; returns how many bytes it wrote.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        try _readFully(buffer) { (b) throws(ZstdError) in try read(into: b) }
    }

    // MARK: - Internals

    private func fail(_ error: ZstdError) -> ZstdError {
        let named = error.path == nil && path != nil ? error.naming(path!) : error
        // What the input counts as consumed after damage, the same on every path (serial or worker), so a
        // job's counts do not depend on the thread count: a truncated input was read to its end (as
        // `ZstdDecoder` counts it); a corrupt one up to the end of the damaged unit (block, or frame for a
        // wrong checksum).
        if error.code == .truncated, let offset = error.offset { consumedOffset = max(consumedOffset, offset) }
        if error.code == .corrupt, let range = error.damagedRange { consumedOffset = max(consumedOffset, range.upperBound) }
        finished = true
        pendingError = named
        serialContext?.reset()
        return named
    }

    /// Reads the first 4 bytes and picks frames or pass-through (a range of a file is always frames).
    private func sniff() {
        let reader = initialBytes.withUnsafeBytes {
            _InputReader(fd: fd, capacity: 256 << 10, prefix: $0, base: startOffset ?? 0, limit: options.inputEnd)
        }
        initialBytes = []
        self.reader = reader
        guard reader.fill(4) else {
            // A read error, or a range shorter than a magic number: reported in order by the walker.
            mode = reader.readError == nil && options.inputEnd == nil ? .plain : .frames
            return
        }
        let magic = UInt32(littleEndian: reader.bytes.loadUnaligned(as: UInt32.self))
        let zstd = magic == _Zstd.frameMagic || magic & _Zstd.skippableMagicMask == _Zstd.skippableMagicStart
        // A range of a file is frames: bytes there that are no frame are damage, named as the walker names
        // them in a whole-file read, never text passed through.
        mode = zstd || options.inputEnd != nil ? .frames : .plain
    }

    private func readPlain(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        let reader = self.reader!
        if reader.available == 0 && !reader.fill(1) {
            if let code = reader.readError {
                throw fail(ZstdError(.readFailed, offset: reader.readOffset, errno: code))
            }
            finished = true
            return 0
        }
        let n = min(buffer.count, reader.available)
        reader.take(n, into: buffer.baseAddress!)
        consumedOffset = reader.offset
        return n
    }

    // MARK: The ordered queue

    private var framesInFlight: Int { options.framesInFlight ?? options.threads + 2 }

    /// Walks the input until `framesInFlight` items are queued (or it ends), handing frames to the workers.
    private func topUp() {
        guard let reader else { return }
        while !walkerFinished && queue.count - queueHead < framesInFlight {
            let slot = free.popLast() ?? _DecodeSlot()
            guard walker.next(reader, into: slot) else {
                free.append(slot)
                walkerFinished = true
                return
            }
            queue.append(slot)
            peakItemsInFlight = max(peakItemsInFlight, queue.count - queueHead)
            if slot.kind == .frame {
                // One thread and no streaming decoder: every frame takes the serial path, unit by unit.
                if options.threads == 1 { slot.kind = .serial } else { submit(slot) }
            }
        }
    }

    private func popHead() {
        let slot = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        free.append(slot)
    }

    private func readFrames(into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        while true {
            topUp()
            guard queueHead < queue.count else {
                if let reader, pendingError == nil { consumedOffset = max(consumedOffset, reader.offset) }
                if serialHint != 0 {
                    throw fail(ZstdError(.truncated, offset: consumedOffset, detail: "the last frame is incomplete"))
                }
                finished = true
                return 0
            }
            let slot = queue[queueHead]
            switch slot.kind {
            case .failure:
                throw fail(slot.failure!)
            case .frame:
                let n = deliver(slot, into: buffer)
                if slot.consumed == slot.decodedCount {
                    let error = slot.error
                    if error == nil { consumedOffset = slot.start + Int64(slot.compressedCount) }
                    parallelFrames += 1
                    popHead()
                    if let error {
                        let named = fail(error)
                        if n > 0 { return n }
                        throw named
                    }
                }
                if n > 0 { return n }
            case .serial:
                let n = try readSerial(slot, into: buffer)
                if n > 0 { return n }
                popHead()
            }
        }
    }

    /// Waits for a frame's worker, then copies out what `buffer` holds of its decoded bytes.
    private func deliver(_ slot: _DecodeSlot, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if let pool {
            pool.monitor.locked {
                while !slot.done { pool.monitor.waitForDone() }
            }
        }
        let n = min(buffer.count, slot.decodedCount - slot.consumed)
        if n > 0 {
            buffer.baseAddress!.copyMemory(from: slot.decoded.baseAddress! + slot.consumed, byteCount: n)
            slot.consumed += n
        }
        return n
    }

    private func submit(_ slot: _DecodeSlot) {
        if pool == nil {
            var contexts: [_DContext] = []
            for _ in 0..<options.threads {
                // A context that cannot be made (out of memory) leaves fewer workers; none: decode serially.
                if let context = try? _DContext(windowLogMax: windowLogMax) { contexts.append(context) }
            }
            guard !contexts.isEmpty else {
                slot.kind = .serial
                return
            }
            pool = _WorkerPool(contexts: contexts)
        }
        let pool = pool!
        let monitor = pool.monitor
        let cancelled = self.cancelled
        pool.submit { context in
            if !monitor.locked({ cancelled.isSet }) { _FrameDecoding.decode(slot, with: context) }
            monitor.locked { slot.done = true }
            monitor.broadcastDone()
        }
    }

    // MARK: The serial path

    /// Decodes the next bytes of a `.serial` piece into `buffer`, as `ZstdDecoder.readZstd` does: one
    /// streaming context, libzstd's hint kept across pieces (0 = at a frame boundary), damage located by
    /// reading the frame's block headers back (`_DamageLocator`). Returns 0 once the piece is consumed and
    /// libzstd has nothing more to flush from it.
    private func readSerial(_ slot: _DecodeSlot, into buffer: UnsafeMutableRawBufferPointer) throws(ZstdError) -> Int {
        if serialContext == nil {
            do throws(ZstdError) {
                serialContext = try _DContext(windowLogMax: windowLogMax)
            } catch {
                throw fail(error)
            }
        }
        let context = serialContext!
        var output = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
        while true {
            let input = slot.compressedBytes
            // Bytes libzstd still holds from the last unit are flushed first, with no new input: were they
            // flushed by the call that takes the next unit, and that unit failed, they would be lost.
            let flushing = serialMayHoldOutput
            let limit = flushing ? slot.consumed : unitEnd(slot)
            var inBuf = ZSTD_inBuffer(src: input.baseAddress.map { $0 + slot.consumed }, size: limit - slot.consumed, pos: 0)
            let empty = slot.consumed == input.count
            let result = context.decompress(&output, &inBuf)
            slot.consumed += inBuf.pos
            let consumed = slot.start + Int64(slot.consumed)
            consumedOffset = consumed
            switch result {
            case .failure(let e):
                let error = _DamageLocator.error(
                    e, offset: consumed, path: path, maxWindowBytes: options.maxWindowBytes
                ) { checksum in
                    // Offsets are already the file's: read back at them (base 0), unless the input is a pipe.
                    _DamageLocator.locate(
                        fd: fd, base: startOffset.map { _ in 0 }, frameStart: serialFrameStart, consumed: consumed,
                        handed: slot.start + Int64(limit), checksum: checksum, windowLogMax: windowLogMax)
                }
                let named = fail(error)
                if output.pos > 0 { return output.pos }
                throw named
            case .success(let hint):
                if inBuf.pos > 0 || output.pos > 0 {
                    serialHint = hint
                    if hint == 0 { serialFrameStart = consumed }
                }
            }
            if output.pos > 0 {
                serialMayHoldOutput = output.pos == output.size
                return output.pos
            }
            if flushing {
                serialMayHoldOutput = false
                continue
            }
            if empty { return 0 }
            if inBuf.pos == 0 {
                // libzstd took nothing and gave nothing with input and room: never seen; stop rather than spin.
                throw fail(ZstdError(.corrupt, offset: consumed, path: path, detail: "the decoder made no progress here"))
            }
        }
    }

    /// Where the next call's input ends: the walker's units in a piece of a frame (its header alone, then one
    /// block at a time), so that a failing call holds only the failing unit (libzstd drops the output of the
    /// call that fails, and decodes a whole frame in one pass, handing out nothing of it when it fails, when
    /// its header and all its blocks arrive in one call); the whole piece when it was not walked.
    private func unitEnd(_ slot: _DecodeSlot) -> Int {
        if slot.consumed < slot.headerSize { return slot.headerSize }
        while slot.nextBlock < slot.blockEnds.count && slot.blockEnds[slot.nextBlock] <= slot.consumed { slot.nextBlock += 1 }
        if slot.nextBlock < slot.blockEnds.count { return slot.blockEnds[slot.nextBlock] }
        return slot.compressedCount
    }
}

/// A flag the decoder sets when it goes away, so that queued frames are not decoded for nothing.
/// Read and written under the pool's lock.
final class _CancelFlag: @unchecked Sendable {
    private(set) var isSet = false
    func set() { isSet = true }
}

/// What a worker does with a `.frame`.
enum _FrameDecoding {
    /// Decodes the frame in `slot` in one pass into its decoded buffer; on an error, decodes it again block
    /// by block to hand out the bytes before the damaged block and to name that block.
    static func decode(_ slot: _DecodeSlot, with context: _DContext) {
        let capacity = slot.contentSize.map { min($0, slot.decodedBound) } ?? slot.decodedBound
        slot.reserveDecoded(capacity)
        let destination = UnsafeMutableRawBufferPointer(rebasing: slot.decoded[..<capacity])
        switch context.decompressFrame(slot.compressedBytes, into: destination) {
        case .success(let n):
            slot.decodedCount = n
        case .failure(let oneShot):
            context.reset()
            locate(slot, with: context, oneShot: oneShot)
            context.reset()
        }
    }

    /// Decodes the frame again with a streaming context, one unit per call (the frame header, each block, the
    /// checksum), as `_DamageLocator.pinpoint` does: the call that fails names the unit.
    static func locate(_ slot: _DecodeSlot, with context: _DContext, oneShot: _LibzstdError) {
        let frameStart = slot.start
        let frameEnd = slot.start + Int64(slot.compressedCount)
        var pieceEnds = [slot.headerSize] + slot.blockEnds
        if slot.hasChecksum { pieceEnds.append(slot.compressedCount) }
        var produced = 0
        var pieceStart = 0
        var hint = 1
        for (index, pieceEnd) in pieceEnds.enumerated() {
            let input = slot.compressedBytes
            var inBuf = ZSTD_inBuffer(src: input.baseAddress! + pieceStart, size: pieceEnd - pieceStart, pos: 0)
            while true {
                if produced == slot.decoded.count && produced < slot.decodedBound {
                    slot.reserveDecoded(min(slot.decodedBound, max(produced * 2, 128 << 10)), keep: produced)
                }
                let room = slot.decoded.count - produced
                var outBuf = ZSTD_outBuffer(dst: slot.decoded.baseAddress.map { $0 + produced }, size: room, pos: 0)
                let before = inBuf.pos
                let result = context.decompress(&outBuf, &inBuf)
                produced += outBuf.pos
                switch result {
                case .failure(let e):
                    slot.decodedCount = produced
                    if e.code == _Zstd.checksumWrongCode {
                        slot.error = ZstdError(
                            .corrupt, damagedRange: frameStart..<frameEnd, libzstdName: e.name,
                            detail: "the frame's content does not match its checksum: the damage is somewhere in this frame")
                    } else {
                        let unit = _DamageLocator.Unit(
                            kind: index == 0 ? .header : .block,
                            range: (frameStart + Int64(pieceStart))..<(frameStart + Int64(pieceEnd)), frameStart: frameStart)
                        let place = _DamageLocator.describe(unit)
                        slot.error = ZstdError(.corrupt, damagedRange: place.range, libzstdName: e.name, detail: place.detail)
                    }
                    return
                case .success(let h):
                    hint = h
                }
                // The piece is done once it is consumed and the output was not filled (nothing left to flush).
                if inBuf.pos == inBuf.size && outBuf.pos < outBuf.size { break }
                if inBuf.pos == before && outBuf.pos == 0 {
                    if inBuf.pos == inBuf.size { break }
                    // Input left, no room, no progress: the frame decodes past what its blocks can hold.
                    slot.decodedCount = produced
                    slot.error = ZstdError(
                        .corrupt, damagedRange: frameStart..<frameEnd, libzstdName: oneShot.name,
                        detail: "the frame decodes to more bytes than its blocks can hold")
                    return
                }
            }
            pieceStart = pieceEnd
        }
        slot.decodedCount = produced
        if hint != 0 {
            // The one-pass decode failed and the streaming one did not finish the frame: say what libzstd said.
            slot.error = ZstdError(
                .corrupt, damagedRange: frameStart..<frameEnd, libzstdName: oneShot.name,
                detail: "the frame does not decode (in the frame that starts at byte \(frameStart))")
        }
    }
}
