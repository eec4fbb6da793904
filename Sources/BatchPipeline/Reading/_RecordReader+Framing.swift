// MARK: Internal API
//
// The reader's framing steps: where a chunk ends, what happens to the bytes that are not whole records.

import Dispatch

extension _RecordReader {
    /// Fills the chunk until the framer finds a boundary (growing it for a long record up to
    /// `--max-record`, a chunk at a time, with the pool's over-long budget), or the input ends.
    func frame(_ cursor: _FileCursor, _ chunk: _Chunk) -> _FramerDecision {
        let framer = cursor.framer!
        var limit = max(options.chunkSize, chunk.input.count + 1)
        while true {
            fill(chunk, cursor, limit: limit)
            let t0 = collectStats ? DispatchTime.now().uptimeNanoseconds : 0
            defer { if collectStats { addFrameNanos(DispatchTime.now().uptimeNanoseconds - t0) } }
            let decision: _FramerDecision? = chunk.input.withUnsafeBytes { bytes in
                if cursor.eof { return end(cursor, framer, bytes) }
                if let boundary = framer.advance(bytes) { return .records(end: boundary, damage: nil) }
                if bytes.count >= options.maxRecord {
                    switch framer.overlong(bytes) {
                    case .records: return .records(end: bytes.count, damage: nil)
                    case let decision: return decision
                    }
                }
                return nil
            }
            if let decision { return decision }
            // One chunk more at a time (the framer scans only the new bytes): the chunk stops within a
            // chunk of the record's end, so a long record carries at most a chunk of the next one with it.
            limit = min(limit + options.chunkSize, options.maxRecord + options.chunkSize)
        }
    }

    /// The input ended (or failed): what the bytes in the buffer are.
    private func end(_ cursor: _FileCursor, _ framer: _Framer, _ bytes: UnsafeRawBufferPointer) -> _FramerDecision {
        if cursor.readFailed {
            // Damage: whole records before it are handed over; a partial one after them is rejected whole.
            let boundary = framer.advance(bytes) ?? 0
            if boundary < bytes.count {
                return .cut(recordsEnd: boundary, rejectEnd: bytes.count, reason: "record cut off by damaged input", category: "record cut off by damaged input")
            }
            return .records(end: bytes.count, damage: nil)
        }
        switch framer.atEnd(bytes) {
        case .records(_, let damage):
            if let damage, cursor.error == nil {
                cursor.error = "\(cursor.displayPath): \(damage.message) at byte offset \(cursor.offset + Int64(damage.at))"
            }
            return .records(end: bytes.count, damage: nil)
        case let decision:
            return decision
        }
    }

    /// Hands `[0, boundary)` over as records and carries the rest.
    func handOverRecords(_ chunk: _Chunk, _ cursor: _FileCursor, upTo boundary: Int) {
        let framer = cursor.framer!
        chunk.entryState = framer.entryState
        // No newline count: the thread that takes the chunk counts its lines, in parallel (`_LineLedger`).
        cursor.offset += Int64(boundary)
        chunk.decodedBytes += boundary
        chunk.recordBytes = boundary
        carryOver(chunk, from: boundary)
        framer.cut(at: boundary)
    }

    /// Hands `[0, recordsEnd)` over with the record `[recordsEnd, rejectEnd)` rejected after them; the bytes
    /// after it are read again from a record start.
    func handOverCut(_ chunk: _Chunk, _ cursor: _FileCursor, recordsEnd: Int, rejectEnd: Int, reason: String, category: String) {
        let framer = cursor.framer!
        chunk.entryState = framer.entryState
        // Rare (a quote that never closes, damage): counted here, where the reject's line is made, and
        // published with the chunk as its count.
        let (relative, rejected) = chunk.input.withUnsafeBytes { bytes in
            (_countNewlines(bytes, from: 0, to: recordsEnd), _countNewlines(bytes, from: recordsEnd, to: rejectEnd))
        }
        chunk.tailReject = _Reject(
            relativeLine: relative, reason: reason, category: category, raw: chunk.input.copyBytes(recordsEnd..<rejectEnd),
            length: rejectEnd - recordsEnd)
        chunk.counts.records += 1
        chunk.counts.rejected += 1
        chunk.newlines = relative + rejected
        cursor.offset += Int64(rejectEnd)
        chunk.decodedBytes += rejectEnd
        chunk.recordBytes = recordsEnd
        carryOver(chunk, from: rejectEnd)
        framer.reset()
    }

    private func carryOver(_ chunk: _Chunk, from: Int) {
        carryBuffer.append(chunk.input, from: from)
        chunk.input.removeLast(from: chunk.recordBytes)
    }

    /// The last chunk of a file: its error and what the source was.
    func finish(_ chunk: _Chunk, _ cursor: _FileCursor) {
        chunk.isLastOfFile = true
        chunk.fileError = cursor.error
        chunk.compressed = cursor.source.isCompressed ?? false
        chunk.compressedBytes = cursor.source.compressedBytesConsumed
    }

    /// Streams the over-long record at the start of `chunk` out in pieces until the framer finds its end;
    /// the bytes after it are carried over.
    func stream(_ first: _Chunk, _ cursor: _FileCursor, passThrough: Bool, mms: Bool) {
        let framer = cursor.framer!
        let reason = options.overlongReason
        var linesBefore = 0
        var length = 0
        var chunk = first
        var isFirst = true
        if mms { chunk.counts.mms += 1 }
        while true {
            let count = chunk.input.count
            var end = count
            var isLast = cursor.eof
            if !isFirst, let e = chunk.input.withUnsafeBytes({ framer.skip($0) }) {
                end = e
                isLast = true
            }
            // Rare (a record longer than --max-record): each piece's newlines are counted here and published
            // as its count; the record's line is the first piece's first line (`_Piece.linesBefore`).
            chunk.newlines = chunk.input.withUnsafeBytes { _countNewlines($0, from: 0, to: end) }
            cursor.offset += Int64(end)
            chunk.decodedBytes += end
            chunk.recordBytes = end
            length += end
            if end < count { carryOver(chunk, from: end) }
            chunk.piece = _Piece(
                isFirst: isFirst, isLast: isLast, passThrough: passThrough, linesBefore: linesBefore, length: length, reason: reason)
            linesBefore += chunk.newlines
            if isLast && !passThrough {
                chunk.counts.records += 1
                chunk.counts.rejected += 1
            }
            hand(chunk, cursor)
            if isLast { break }
            isFirst = false
            chunk = pool.take()
            fill(chunk, cursor, limit: options.chunkSize)
        }
        framer.reset()
    }
}
