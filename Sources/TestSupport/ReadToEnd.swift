/// Reads with `read` into a `chunk`-byte buffer until it returns 0 or throws, as a consumer of a decoder or
/// byte source does.
///
/// - Returns: every byte handed out, the error that ended the reading (nil at the end) and the largest
///   single read (a read that returns more than the buffer holds is a bug the caller checks for).
public func readToEnd(chunk: Int, _ read: (UnsafeMutableRawBufferPointer) throws -> Int)
    -> (bytes: [UInt8], error: (any Error)?, largest: Int)
{
    var out: [UInt8] = []
    var largest = 0
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
    defer { buffer.deallocate() }
    while true {
        do {
            let n = try read(buffer)
            if n == 0 { return (out, nil, largest) }
            largest = max(largest, n)
            out += buffer[..<min(n, chunk)]
        } catch {
            return (out, error, largest)
        }
    }
}
