// MARK: Internal API
//
// What a run of `classify --range` reads: a primitive value (bounds and the frame index), so that the format
// drivers can carry it without depending on Reading, which owns the split's byte source (`_SplitSource`).

import ArchiveIO

/// A split's bounds and what the reader knows about it (`PipelineOptions.split`, checked by the pipeline).
struct _ReadSplit: Sendable {
    /// Compressed offsets, frame boundaries of `index`.
    var start: Int64
    var end: Int64
    var index: ZstdFrameIndex
    /// The archive's line number of the split's first decoded byte, when given.
    var firstLine: Int?
    /// Whether line numbers reach an output (rejects, `--labels-only` lines, `--strict` messages): without
    /// `firstLine` the lines before `start` are then counted; otherwise they are left uncounted.
    var linesMatter: Bool

    /// Whether the split is less than the whole archive.
    var isPartial: Bool { start > 0 || end < index.fileSize }
}
