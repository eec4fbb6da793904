import MessageFilter
import ZstdStream

/// Message bodies (and senders) of an archive, loaded into one buffer: what `bench` scans to measure
/// the matcher alone, with decoding and parsing out of the timing.
public struct LoadedMessages: Sendable {
    /// Senders and bodies, back to back.
    public var buffer: [UInt8]
    /// Where each message's sender and body are in `buffer`.
    public var spans: [MessageSpan]
    /// Bytes of the bodies alone.
    public var bodyBytes: Int

    /// Reads JSON Lines records from `path` (plain or zstd) until `limit` bytes of bodies are loaded.
    /// Malformed lines are skipped.
    public static func load(path: String, fields: FieldNames = FieldNames(), limit: Int = 256 << 20) throws -> LoadedMessages {
        let decoder = try ZstdDecoder(path: path)
        var loaded = LoadedMessages(buffer: [], spans: [], bodyBytes: 0)
        loaded.buffer.reserveCapacity(min(limit + limit / 4, 1 << 30))
        let keys = [fields.id, fields.sender, fields.body].map { Array($0.utf8) }
        let state = _FileState(index: 0, path: path, format: .jsonl, keys: keys.map { String(decoding: $0, as: UTF8.self) })
        let fieldSlots = UnsafeMutableBufferPointer<JSONField>.allocate(capacity: 3)
        defer { fieldSlots.deallocate() }
        fieldSlots.initialize(repeating: JSONField())
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 4 << 20, alignment: 16)
        defer { chunk.deallocate() }
        var carry: [UInt8] = []
        var done = false
        while !done && loaded.bodyBytes < limit {
            let n = try decoder.read(into: chunk)
            if n == 0 { done = true }
            var data = carry
            data += UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(chunk)[0..<n])
            carry = []
            data.withUnsafeBytes { raw in
                var start = 0
                while start < raw.count && loaded.bodyBytes < limit {
                    guard let newline = _find(0x0A, in: raw, from: start, to: raw.count) ?? (done ? raw.count : nil) else {
                        carry = Array(raw[start...])
                        return
                    }
                    let line = UnsafeRawBufferPointer(rebasing: raw[start..<newline])
                    defer { start = newline + 1 }
                    guard _JSONScanner.scan(line, keys: UnsafeBufferPointer(state.keyBuffers), fields: fieldSlots) == nil,
                        fieldSlots[2].kind == .string
                    else { continue }
                    func append(_ f: JSONField) -> (Int, Int) {
                        let s = loaded.buffer.count
                        let content = UnsafeRawBufferPointer(rebasing: line[f.contentStart..<f.contentEnd])
                        if f.escaped { _JSONUnescape.append(content, to: &loaded.buffer) } else { loaded.buffer += content }
                        return (s, loaded.buffer.count - s)
                    }
                    var sender = (0, -1)
                    if fieldSlots[1].kind == .string { sender = append(fieldSlots[1]) }
                    let body = append(fieldSlots[2])
                    loaded.bodyBytes += body.1
                    loaded.spans.append(MessageSpan(senderStart: sender.0, senderCount: sender.1, bodyStart: body.0, bodyCount: body.1))
                }
            }
        }
        return loaded
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's peak resident memory in bytes (`getrusage`).
public func peakResidentBytes() -> Int {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    return Int(usage.ru_maxrss)
    #else
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss) * 1024
    #endif
}
