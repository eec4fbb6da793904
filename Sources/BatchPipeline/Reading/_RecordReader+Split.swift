// MARK: Internal API
//
// Reading one split of a multi-frame zstd archive (`classify --range`, `_SplitSource`): the file's first
// bytes still choose the driver (format, header row, byte-order mark, the field checks), exactly as for the
// whole archive, then the split's own records are read from its frames.

import ArchiveIO

extension _RecordReader {
    /// Reads the split `split` of the archive at `path` (the run's only input).
    ///
    /// - Throws: ``PipelineError``: the archive cannot be opened (missing), the lines before the split cannot
    ///   be counted (damage there: bad input), the file cannot be read as asked, or its format is not line-framed
    ///   (usage).
    func readSplit(_ index: Int, _ path: String, _ split: _ReadSplit, shouldStop: () -> Bool) throws(PipelineError) {
        progress.start(file: index, total: split.end - split.start)
        carryBuffer.removeAll()
        let source: _SplitSource
        do {
            source = try _SplitSource(
                path: path, split: split, threads: min(max(1, options.decodeThreads), _ByteSources.maxDecodeThreads),
                maxWindowBytes: options.maxWindowBytes)
        } catch {
            if error.code == .fileFailed { throw PipelineError(.inputMissing, error.description) }
            throw PipelineError(.badInput, "\(error.description) (reading the frames before --range \(split.start):\(split.end))")
        }
        let display = displayName(path)
        if source.startsFile {
            // Nothing is decoded before the split: it opens the file itself.
            try readFile(_FileCursor(index: index, path: path, displayPath: display, source: source), shouldStop: shouldStop)
            return
        }
        let head: any _ByteSource
        do {
            head = try _ByteSources.open(path, stdinName: options.stdinName, maxWindowBytes: options.maxWindowBytes, threads: 1)
        } catch {
            throw PipelineError(error.code == .unsupportedInput ? .badInput : .inputMissing, error.description)
        }
        let cursor = _FileCursor(index: index, path: path, displayPath: display, source: head)
        let chunk = pool.take()
        pool.admit(chunk, inputBytes: 0)
        do throws(PipelineError) { try open(cursor, chunk) } catch {
            pool.put(chunk)
            throw error
        }
        pool.put(chunk)
        // The head's bytes are the first split's: none of them is handed over here, and its preamble
        // (byte-order mark, header row) is written by the first split only.
        let state = cursor.state!
        cursor.state = _FileState(
            index: state.index, path: state.path, displayPath: state.displayPath, driver: state.driver, hadBOM: state.hadBOM,
            writesPreamble: false)
        cursor.source = source
        cursor.eof = false
        cursor.readFailed = false
        cursor.error = nil
        cursor.line = source.firstLine
        // `cursor.offset` (decoded offsets, only in XML's messages) is left as the head left it: splits read no XML.
        cursor.framer!.reset()
        carryBuffer.removeAll()
        try readFile(cursor, shouldStop: shouldStop)
    }
}
