import Foundation

extension ArchivePlan {
    /// The plan as pretty, key-sorted JSON (`smsfilter plan --json`): the archive, whether and why it is
    /// splittable, and per split its `range` ("START:END", for `classify --range`), frames, decoded offsets
    /// and sizes, and with `countLines` its newlines and first line (for `classify --first-line`).
    public func jsonData() -> Data {
        var root: [String: Any] = [
            "archive": archive, "compressedBytes": compressedBytes, "container": container, "format": format.rawValue,
            "frames": frames, "splitSize": splitSize, "splittable": splittable, "decodedBytes": knownDecodedBytes.map { $0 as Any } ?? NSNull(),
            "decodedExact": knownDecodedBytes != nil && (container == "plain" || decodedExact), "damaged": damaged,
        ]
        if let frameIndex { root["frameIndex"] = frameIndex }
        if let walkStopped { root["walkStopped"] = walkStopped }
        if let reason { root["reason"] = reason }
        if let lines { root["lines"] = lines }
        root["splits"] = splits.enumerated().map { k, split -> [String: Any] in
            var entry: [String: Any] = [
                "split": k, "range": "\(split.start):\(split.end)", "start": split.start, "end": split.end,
                "firstFrame": split.firstFrame, "frames": split.frames,
                "decodedBytes": container == "zstd" ? split.decodedBytes as Any : knownDecodedBytes.map { $0 as Any } ?? NSNull(),
                "decodedExact": container == "zstd" ? split.decodedExact : knownDecodedBytes != nil,
            ]
            if let value = split.decodedStart { entry["decodedStart"] = value }
            if let value = split.lines { entry["lines"] = value }
            if let value = split.firstLine { entry["firstLine"] = value }
            if let value = split.error { entry["error"] = value }
            return entry
        }
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: options)) ?? Data()
        return data + Data("\n".utf8)
    }

    /// The decoded size as far as it is known: a zstd archive's (exact or estimated), a plain file's own size;
    /// nil for gzip (whose stream does not say it).
    var knownDecodedBytes: Int64? {
        switch container {
        case "zstd": return decodedBytes
        case "plain": return compressedBytes
        default: return nil
        }
    }

    /// The plan for a person: one line about the archive, then one row per split.
    public func table() -> String {
        var lines: [String] = []
        var about = "\(archive): \(container)"
        if container == "zstd" { about += ", \(frames) frame\(frames == 1 ? "" : "s") (\(frameIndex ?? "frame headers"))" }
        about += ", \(format.rawValue), "
        if let known = knownDecodedBytes {
            about += "\(groupedDigits(Int(known))) decoded bytes\(container == "plain" || decodedExact ? "" : " (estimated)")"
        } else {
            about += "\(groupedDigits(Int(compressedBytes))) compressed bytes (gzip does not say its decoded size)"
        }
        lines.append(about)
        if let walkStopped { lines.append("the walk of the frame headers stopped \(walkStopped); the rest is the last split's") }
        if !splittable {
            lines.append("one split, the whole archive: \(reason ?? "")")
        } else {
            lines.append("\(splits.count) split\(splits.count == 1 ? "" : "s") of at least \(groupedDigits(Int(splitSize))) decoded bytes"
                + (reason.map { " (\($0))" } ?? ""))
        }
        let header = ["split", "range (for --range)", "frames", "decoded bytes", "first line"]
        var rows = [header]
        for (k, split) in splits.enumerated() {
            let decoded = container == "zstd"
                ? groupedDigits(Int(split.decodedBytes)) + (split.decodedExact ? "" : " ~")
                : knownDecodedBytes.map { groupedDigits(Int($0)) } ?? "unknown"
            rows.append([
                "\(k)", "\(split.start):\(split.end)", container == "zstd" ? "\(split.frames)" : "-", decoded,
                split.firstLine.map { groupedDigits($0) } ?? (split.error == nil ? "" : "damaged"),
            ])
        }
        let widths = header.indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { c, cell in
                c == 1 ? cell.padding(toLength: widths[c], withPad: " ", startingAt: 0) : cell.leftPadded(widths[c])
            }
            lines.append(cells.joined(separator: "  "))
        }
        for (k, split) in splits.enumerated() where split.error != nil { lines.append("split \(k): \(split.error!)") }
        if container == "zstd" && !decodedExact {
            lines.append("~ estimated from the first frame's ratio (the frames do not say their sizes; --lines decodes them)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
