import ArgumentParser
import Foundation

/// `--frame-size`: decoded bytes per frame of a zstd output in zstd's seekable format, or `0` for one frame
/// without a seek table.
struct FrameSize: ExpressibleByArgument {
    let bytes: Int
    /// The value as the user wrote it (for messages).
    let given: String
    init?(argument: String) {
        // A negative size parses, so that `validate()` says what is allowed (Limits.check(frameSize:)).
        guard let size = ByteSize(argument: argument) else { return nil }
        bytes = size.bytes
        given = argument
    }
    init(_ bytes: Int) {
        self.bytes = bytes
        given = ByteSize.describe(bytes)
    }
    /// The frame size for ``OutputFile/Compression/zstd(level:workers:frameSize:)``: nil for one frame.
    var frameSize: Int? { bytes == 0 ? nil : bytes }
    var defaultValueDescription: String { ByteSize(bytes).argument }
}

/// A size given as bytes or with a K/M/G suffix.
struct ByteSize: ExpressibleByArgument {
    let bytes: Int
    /// The value as the user wrote it (`0`, `64k`, `1GiB`), for messages: `argument` would say `0G` for `0`.
    let given: String
    init?(argument: String) {
        // Zero and negative sizes parse, so that `validate()` says what is allowed (Limits.check(size:)); every
        // ByteSize option is checked there.
        guard let value = ByteSize.parse(argument) else { return nil }
        bytes = value
        given = argument
    }
    init(_ bytes: Int) {
        self.bytes = bytes
        given = Self.describe(bytes)
    }
    var defaultValueDescription: String { argument }
    /// Parses sizes like `4M`, `512K`, `1G`, `65536` (nil when malformed or beyond `Int`).
    static func parse(_ text: String) -> Int? {
        let upper = text.uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let units: [(String, Int)] = [("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40)]
        for (suffix, factor) in units where upper.hasSuffix(suffix) {
            guard let n = Int(upper.dropLast()) else { return nil }
            let (product, overflow) = n.multipliedReportingOverflow(by: factor)
            return overflow ? nil : product
        }
        return Int(upper)
    }

    /// `64M`, `4K`, `1G`, or the bytes.
    var argument: String { Self.describe(bytes) }

    /// `64M`, `4K`, `1G`, `1T`, or the bytes (`0` for none: every multiple is `0G`).
    static func describe(_ bytes: Int) -> String {
        bytes == 0 ? "0"
            : bytes % (1 << 40) == 0 ? "\(bytes >> 40)T"
            : bytes % (1 << 30) == 0 ? "\(bytes >> 30)G"
            : bytes % (1 << 20) == 0 ? "\(bytes >> 20)M" : bytes % 1024 == 0 ? "\(bytes >> 10)K" : "\(bytes)"
    }
}
