extension _Chunk {
    /// The file the chunk's bytes come from (set by the reader with the chunk's first byte).
    var file: _FileState? {
        @inline(__always) get { fileObject.map { unsafeDowncast($0, to: _FileState.self) } }
        set { fileObject = newValue }
    }
}
