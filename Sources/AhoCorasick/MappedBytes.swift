#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Immutable bytes kept alive for as long as any automaton uses them: a read-only memory mapping of a
/// file, or a 16-byte aligned copy.
///
/// `@unchecked Sendable`: the memory is never written after `init` returns and is released only in
/// `deinit`, so sharing the pointer between threads is safe.
public final class MappedBytes: @unchecked Sendable {
    private enum Owner {
        case mapping(length: Int)
        case allocation
        case none
    }
    private let base: UnsafeRawPointer?
    private let count: Int
    private let owner: Owner

    /// Maps the file at `path` read-only.
    /// - Throws: `AhoCorasickLoadError` naming the path when it cannot be opened, inspected or mapped.
    public init(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw AhoCorasickLoadError(.open(path: path, errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw AhoCorasickLoadError(.open(path: path, errno: errno)) }
        let length = Int(info.st_size)
        if length == 0 {
            base = nil
            count = 0
            owner = .none
            return
        }
        guard let pointer = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), pointer != MAP_FAILED else {
            throw AhoCorasickLoadError(.map(path: path, errno: errno))
        }
        base = UnsafeRawPointer(pointer)
        count = length
        owner = .mapping(length: length)
    }

    /// Copies `bytes` into a new 16-byte aligned allocation.
    public convenience init(copying bytes: [UInt8]) {
        self.init(_copying: bytes)
    }

    private init(_copying bytes: [UInt8]) {
        // At least 1 byte so that an empty copy still has an aligned base address.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let from = source.baseAddress { memory.copyMemory(from: from, byteCount: source.count) }
        }
        base = UnsafeRawPointer(memory)
        count = bytes.count
        owner = .allocation
    }

    /// Takes ownership of `buffer`, an allocation made with `UnsafeMutableRawPointer.allocate(…, alignment: 16)`.
    init(_adopting buffer: UnsafeMutableRawBufferPointer) {
        base = UnsafeRawPointer(buffer.baseAddress)
        count = buffer.count
        owner = buffer.baseAddress == nil ? .none : .allocation
    }

    deinit {
        switch owner {
        case .mapping(let length):
            munmap(UnsafeMutableRawPointer(mutating: base), length)
        case .allocation:
            UnsafeMutableRawPointer(mutating: base)?.deallocate()
        case .none:
            break
        }
    }

    /// The number of bytes.
    public var byteCount: Int { count }

    /// Calls `body` with the bytes, which stay valid (and this object alive) until `body` returns.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(self) {} }
        return try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes, for the package's loaders only: valid for as long as this object lives, so whoever keeps a
    /// pointer into them keeps this object too (an `AhoCorasick` holds its `storage`; the `.smsf` loader holds
    /// the mapping in every phrase matcher it makes). Not public: a user gets the bytes in a scope.
    package var _unsafeBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
