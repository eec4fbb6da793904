// MARK: Internal API

import Dispatch

/// Throttles progress reports to about four a second.
struct _ProgressThrottle {
    let started = DispatchTime.now().uptimeNanoseconds
    var last: UInt64 = 0

    /// Calls `report` with the progress when a quarter second has passed since the last call (or `force`).
    mutating func tick(
        records: Int, rejected: Int, bytes: Int64, file: Int, fileCount: Int, read: Int64, total: Int64?, force: Bool = false,
        _ report: ((Progress) -> Void)?
    ) {
        guard let report else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || now - last > 250_000_000 else { return }
        last = now
        report(
            Progress(
                records: records, rejected: rejected, bytes: bytes, inputBytesRead: read, inputBytesTotal: total, fileIndex: file,
                fileCount: fileCount, seconds: Double(now - started) / 1e9))
    }
}
