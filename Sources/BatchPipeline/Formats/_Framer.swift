// MARK: Internal API
//
// Framing: where whole records end, so that the reader can hand a worker a chunk that holds only whole
// records. A framer belongs to one pass over one file and is used only by the reader thread. It scans the
// reader's buffer incrementally: the reader appends decoded bytes and calls `advance` again, and the framer
// resumes where it stopped, so each byte is scanned about once however long a record is.
//
//   buffer:  [ whole records … | last boundary | partial record …… ]
//                                ^ advance() returns this; the reader cuts here and carries the rest over
//
// The framing rules are the format's (docs/DESIGN.md, "Record formats"): JSON Lines and TSV end a record at
// a newline; CSV at a newline outside a quoted field, a quote being special only at the start of a field;
// XML between constructs (and inside comments, CDATA and processing instructions, which pass through).

/// What to do with the bytes of the reader's buffer: what a framer answers when no boundary can be found in
/// them (over-long, or at the end of the input), and what the reader then does with the chunk (one enum for
/// both).
enum _FramerDecision {
    /// `[0, end)` are whole records, handed over; the bytes after them are carried to the next chunk. At the
    /// end of the input `end` is every byte, with `damage` to report when the input ended inside a construct
    /// (an XML comment or tag never closed): a message and its offset in the buffer.
    case records(end: Int, damage: (message: String, at: Int)?)
    /// `[0, recordsEnd)` are whole records, `[recordsEnd, rejectEnd)` is a record to reject with `reason`,
    /// and the bytes after it are read again as records (a CSV quote that never closes).
    case cut(recordsEnd: Int, rejectEnd: Int, reason: String, category: String)
    /// The record at the start is longer than `--max-record`: it is streamed out to the rejects and read
    /// past with `skip(_:)` (the framer keeps the state it needs to find the record's end). With
    /// `passThrough` it is not a record but bytes that pass through to the output (an XML tag other than
    /// `<sms>`, such as an `<mms>` part holding a video); `mms` when it is an `<mms>` start tag.
    case stream(passThrough: Bool, mms: Bool)
}

protocol _Framer: AnyObject {
    /// Scans the bytes of `buffer` not seen yet; returns the end of the last complete record in it (> 0),
    /// or nil when there is none.
    func advance(_ buffer: UnsafeRawBufferPointer) -> Int?
    /// The parser's starting state for a chunk that begins at buffer position 0 (XML: inside a comment…).
    var entryState: UInt8 { get }
    /// The reader cut the buffer at `offset`, the boundary `advance` last returned: positions move down.
    func cut(at offset: Int)
    /// No boundary within `--max-record` bytes: what the bytes at the start are.
    func overlong(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision
    /// The input ended: what the bytes in `buffer` (after the last cut) are.
    func atEnd(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision
    /// While an over-long record streams past: the index just after its end in `block`, or nil when it goes
    /// on beyond `block`.
    func skip(_ block: UnsafeRawBufferPointer) -> Int?
    /// Back to the state at the start of a record, at buffer position 0 (after a skip or a rejected cut).
    func reset()
}

/// JSON Lines and TSV: a record ends at a newline.
final class _LineFramer: _Framer {
    private var scanned = 0

    func advance(_ buffer: UnsafeRawBufferPointer) -> Int? {
        let from = scanned
        scanned = buffer.count
        return _findLast(0x0A, in: buffer, from: from, to: buffer.count).map { $0 + 1 }
    }

    var entryState: UInt8 { 0 }

    func cut(at offset: Int) { scanned -= offset }

    func overlong(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision { .stream(passThrough: false, mms: false) }

    func atEnd(_ buffer: UnsafeRawBufferPointer) -> _FramerDecision { .records(end: buffer.count, damage: nil) }

    func skip(_ block: UnsafeRawBufferPointer) -> Int? { _find(0x0A, in: block, from: 0, to: block.count).map { $0 + 1 } }

    func reset() { scanned = 0 }
}
