// MARK: Internal API

import MessageFilter

/// What workers need to know about the file a chunk came from. Immutable once built by the reader.
final class _FileState: @unchecked Sendable {
    let index: Int
    let path: String
    let format: InputFormat
    /// JSONL keys / XML attribute names wanted, in slot order: id, sender, body, then extras.
    let keys: [[UInt8]]
    /// `keys` as raw buffers over a stable allocation, for the scanner (freed in deinit).
    let keyBuffers: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>
    /// CSV/TSV: column index of id, sender, body (-1: none), and the column count of the header.
    let columns: (id: Int, sender: Int, body: Int)
    let separator: UInt8

    static let idSlot = 0
    static let senderSlot = 1
    static let bodySlot = 2

    /// The name used in counts, rejects and errors.
    let displayPath: String

    init(
        index: Int, path: String, displayPath: String? = nil, format: InputFormat, keys: [String],
        columns: (Int, Int, Int) = (-1, -1, -1)
    ) {
        self.index = index
        self.path = path
        self.displayPath = displayPath ?? (path == "-" ? "<stdin>" : path)
        self.format = format
        self.keys = keys.map { Array($0.utf8) }
        self.columns = columns
        self.separator = format == .tsv ? 0x09 : UInt8(ascii: ",")
        keyBuffers = .allocate(capacity: self.keys.count)
        for (i, key) in self.keys.enumerated() {
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, key.count), alignment: 1)
            storage.copyBytes(from: key)
            keyBuffers[i] = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<key.count])
        }
    }

    deinit {
        for buffer in keyBuffers { UnsafeMutableRawPointer(mutating: buffer.baseAddress)?.deallocate() }
        keyBuffers.deallocate()
    }

}
