import Foundation

/// An error in a block or identification list (CallKit Call Directory semantics).
public struct NumberListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// An entry is smaller than the one before it (`CXErrorCodeCallDirectoryManagerError.entriesOutOfOrder`).
        case entriesOutOfOrder
        /// An entry equals the one before it (`duplicateEntries`).
        case duplicateEntries
        /// A line is not a number (or a number and a label), or the number is out of range.
        case invalidEntry
        /// The file could not be read.
        case unreadable
    }

    /// What went wrong.
    public let kind: Kind
    /// The list file.
    public let file: String
    /// The 1-based line (0 for the whole file).
    public let line: Int
    /// Details.
    public let detail: String

    public var description: String {
        EchoedText.escaped(line > 0 ? "\(file):\(line): \(kind.rawValue): \(detail)" : "\(file): \(kind.rawValue): \(detail)")
    }
}

/// Reads number lists: one entry per line, strictly ascending, `#` comments and blank lines ignored.
///
/// A block list line is a number (country code + national number, digits with an optional leading `+`);
/// an identification list line is a number, a tab (or spaces), and a label. The file is read in bounded
/// batches (1 MiB at a time) into one compact array; nothing is ever re-sorted.
public enum NumberListReader {
    /// `CXCallDirectoryPhoneNumberMax`.
    public static let maximumNumber: Int64 = Int64.max - 1

    /// Reads a block list.
    /// - Throws: ``NumberListError``.
    public static func readBlockList(path: String) throws -> [Int64] {
        var numbers: [Int64] = []
        try read(path: path, labelled: false) { number, _ in numbers.append(number) }
        return numbers
    }

    /// Reads an identification list: numbers, and for each its label's index in `labels`.
    /// - Throws: ``NumberListError``.
    public static func readIdentificationList(path: String) throws
        -> (numbers: [Int64], labelIndices: [Int32], labels: [String])
    {
        var numbers: [Int64] = []
        var indices: [Int32] = []
        var labels: [String] = []
        var labelIndex: [String: Int32] = [:]
        try read(path: path, labelled: true) { number, label in
            numbers.append(number)
            if let i = labelIndex[label] {
                indices.append(i)
            } else {
                let i = Int32(labels.count)
                labels.append(label)
                labelIndex[label] = i
                indices.append(i)
            }
        }
        return (numbers, indices, labels)
    }

    /// Parses list text already in memory (for tests and small lists).
    public static func parse(_ text: String, file: String, labelled: Bool,
                             _ entry: (Int64, String) -> Void) throws {
        var line = 0
        var previous: Int64 = -1
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            line += 1
            try parseLine(Array(raw.utf8), line: line, file: file, labelled: labelled, previous: &previous, entry)
        }
    }

    /// The longest line of a list: a number, a tab and a label fit in far less; a longer line is an
    /// error at once, so a file without newlines is refused after one read, never gathered into memory.
    public static let maxLineBytes = 4096

    static func read(path: String, labelled: Bool, _ entry: (Int64, String) -> Void) throws {
        // A list must be a regular file: /dev/zero, a FIFO or a terminal could be read without end.
        let type: FileAttributeType?
        do {
            type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
        } catch {
            throw NumberListError(kind: .unreadable, file: path, line: 0, detail: "no such file")
        }
        if type == .typeDirectory {
            throw NumberListError(kind: .unreadable, file: path, line: 0, detail: "is a folder, not a list file")
        }
        guard type == .typeRegular else {
            throw NumberListError(kind: .unreadable, file: path, line: 0, detail: "is not a regular file (a device, a pipe or a socket)")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw NumberListError(kind: .unreadable, file: path, line: 0, detail: "cannot open the file")
        }
        defer { try? handle.close() }
        var pending: [UInt8] = []
        var line = 0
        var previous: Int64 = -1
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch {
                throw NumberListError(kind: .unreadable, file: path, line: line, detail: (error as NSError).localizedDescription)
            }
            if chunk.isEmpty { break }
            // Only the new bytes are searched for newlines: each byte is looked at once (linear time).
            var searchFrom = pending.count
            pending.append(contentsOf: chunk)
            var start = 0
            while let nl = pending[searchFrom...].firstIndex(of: 0x0A) {
                line += 1
                guard nl - start <= maxLineBytes else { throw overlong(path, line) }
                try parseLine(pending[start..<nl], line: line, file: path, labelled: labelled,
                              previous: &previous, entry)
                start = nl + 1
                searchFrom = start
            }
            guard pending.count - start <= maxLineBytes else { throw overlong(path, line + 1) }
            pending.removeSubrange(0..<start)
        }
        if !pending.isEmpty {
            line += 1
            try parseLine(pending[...], line: line, file: path, labelled: labelled, previous: &previous, entry)
        }
    }

    private static func overlong(_ path: String, _ line: Int) -> NumberListError {
        NumberListError(kind: .invalidEntry, file: path, line: line, detail: "line longer than \(maxLineBytes) bytes")
    }

    static func parseLine<C: Collection<UInt8>>(_ bytes: C, line: Int, file: String, labelled: Bool,
                                                previous: inout Int64, _ entry: (Int64, String) -> Void) throws
    {
        var b = Array(bytes)
        if b.last == 0x0D { b.removeLast() }
        while let f = b.first, f == 0x20 || f == 0x09 { b.removeFirst() }
        if b.isEmpty || b[0] == 0x23 { return }
        var i = 0
        if b[0] == 0x2B { i = 1 }
        var value: Int64 = 0
        var digits = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(b[i] - 0x30))
            guard !o1, !o2 else {
                throw NumberListError(kind: .invalidEntry, file: file, line: line, detail: "number out of range")
            }
            value = s
            digits += 1
            i += 1
        }
        guard digits > 0, value <= maximumNumber else {
            throw NumberListError(kind: .invalidEntry, file: file, line: line,
                                  detail: "expected a number (country code + national number)")
        }
        var label = ""
        let rest = b[i...].drop(while: { $0 == 0x20 || $0 == 0x09 })
        if labelled {
            guard i < b.count, b[i] == 0x09 || b[i] == 0x20, !rest.isEmpty else {
                throw NumberListError(kind: .invalidEntry, file: file, line: line,
                                      detail: "expected a number, a tab and a label")
            }
            // The label is shown by iOS for the caller and written into every output that names it: text
            // without control characters, as a rule's name is.
            // (Decoding replaces invalid UTF-8 with U+FFFD: a text that does not give the bytes back was not UTF-8.)
            let text = String(decoding: rest, as: UTF8.self)
            guard text.utf8.elementsEqual(rest), RuleDefinition.isValidName(text) else {
                throw NumberListError(kind: .invalidEntry, file: file, line: line,
                                      detail: "the label must be UTF-8 text without control characters (ESC, NUL, …)")
            }
            label = text
        } else if !rest.isEmpty, rest.first != 0x23 {
            throw NumberListError(kind: .invalidEntry, file: file, line: line,
                                  detail: "expected only a number on the line")
        }
        if value == previous {
            throw NumberListError(kind: .duplicateEntries, file: file, line: line,
                                  detail: "\(value) repeats the entry before it")
        }
        if value < previous {
            throw NumberListError(kind: .entriesOutOfOrder, file: file, line: line,
                                  detail: "\(value) is smaller than the entry before it (\(previous)); entries must be strictly ascending")
        }
        previous = value
        entry(value, label)
    }
}

extension Array where Element == Int64 {
    /// Binary search in a strictly ascending array: the index of `value`, or nil.
    @inline(__always)
    func _sortedIndex(of value: Int64) -> Int? {
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo &+ hi) >> 1  // lo + hi < 2 * count: cannot overflow Int.
            let v = self[mid]
            if v == value { return mid }
            if v < value { lo = mid &+ 1 } else { hi = mid }
        }
        return nil
    }
}
