import Foundation
import MessageFilter

extension EvaluationReport {
    /// A self-contained HTML page (inline CSS and SVG, no script, nothing fetched): title, corpus, rule
    /// set checksum, date, key figures, the predicted-folder distribution as a bar chart, the confusion
    /// matrix as a heat map, and the per-class, per-rule and conflict tables.
    public func html(maxRules: Int = 30) -> String {
        let formatter = ISO8601DateFormatter()
        let mapped = confusionRows.map { labels[$0] }.filter { mapping.targets(of: $0) != nil }
        let differing = mapped.filter { targetText($0) != $0 }
        var mappingText = differing.map { "<code>\(Self.escape($0))=\(Self.escape(targetText($0)))</code>" }.joined(separator: " ")
        if differing.count < mapped.count { mappingText += (differing.isEmpty ? "" : " and ") + "labels that are folder or action names stand for themselves" }
        let corpusNames = corpus.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        var h = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>smsfilter evaluation: \(Self.escape(corpusNames))</title>
            <style>
            body{font:15px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1d2330;margin:24px 32px;max-width:1140px}
            h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid #d8dde6;padding-bottom:4px}
            .meta{color:#4a5366;margin:2px 0}.meta code{background:#eef1f6;padding:1px 5px;border-radius:3px;font-size:13px}
            .cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
            .card{border:1px solid #d8dde6;border-radius:8px;padding:10px 16px;min-width:130px;background:#f8fafc}
            .card .v{font-size:26px;font-weight:600}.card .k{color:#4a5366;font-size:13px}
            table{border-collapse:collapse;font-size:14px}th,td{padding:4px 10px;border-bottom:1px solid #e4e8ef;text-align:right}
            th{background:#f1f4f8}td.l,th.l{text-align:left}.note{color:#4a5366;font-size:13px}
            .good{color:#1a7f37}.bad{color:#b42318}svg text{font-family:inherit}
            </style></head><body>
            <h1>smsfilter evaluation</h1>
            <p class="meta">Corpus: <b>\(Self.escape(corpusNames))</b> · truth field <code>\(Self.escape(truthField))</code> · scored per \(granularity.rawValue)</p>
            <p class="meta">Rule set: \(Self.escape(ruleSource)) · checksum <code>\(Self.escape(ruleSetChecksum))</code></p>
            <p class="meta">Mapping: \(mappingText)
            · generated \(formatter.string(from: date))</p>

            """
        // Key figures.
        let never = neverFired
        let cards: [(String, String)] = [
            ("records", Self.grouped(records)), ("scored", Self.grouped(scored)), ("accuracy", Self.percent(accuracy)),
            ("macro F1 (per class, as scikit-learn)", Self.percent(macroF1)), ("macro F1 (per truth label)", Self.percent(macroF1Labels)), ("conflicts", Self.grouped(conflicts)),
            ("rules never fired", "\(never.count) of \(rules.count)"),
        ]
        h += "<div class=\"cards\">" + cards.map { "<div class=\"card\"><div class=\"v\">\(Self.escape($0.1))</div><div class=\"k\">\($0.0)</div></div>" }.joined() + "</div>\n"
        var notes: [String] = []
        if withoutTruth > 0 { notes.append("\(withoutTruth) records without a truth label") }
        if ignored > 0 { notes.append("\(ignored) ignored") }
        for (label, n) in unmapped.sorted(by: { $0.key < $1.key }) { notes.append("\(n) with unmapped label “\(Self.escape(label))”") }
        for (reason, n) in skipped.sorted(by: { $0.key < $1.key }) { notes.append("\(n) lines skipped (\(reason))") }
        if !notes.isEmpty { h += "<p class=\"note\">Not scored: \(notes.joined(separator: "; ")).</p>\n" }

        h += "<h2>Predicted folders</h2>\n" + folderChart()
        h += "<h2>Confusion matrix: truth label → predicted \(granularity.rawValue)</h2>\n" + heatMap()
        h += "<p class=\"note\">Each row is one truth label (its mapping in brackets); shade = share of the row (empty cells: no record); a green outline marks the \(granularity.rawValue)s the mapping accepts for that label.</p>\n"

        h += "<h2>Per truth label</h2>\n<table><tr><th class=\"l\">label</th><th class=\"l\">accepted</th><th>records</th><th>scored</th><th>correct</th><th>precision</th><th>recall</th><th>F1</th></tr>\n"
        for i in confusionRows {
            let label = labels[i]
            let t = labelTotals[i]
            h += "<tr><td class=\"l\">\(Self.escape(label))</td><td class=\"l\">\(Self.escape(targetText(label)))</td><td>\(confusion[i].reduce(0, +))</td><td>\(t.records)</td><td>\(t.correct)</td>"
            h += "<td>\(Self.percent(t.precision))</td><td>\(Self.percent(t.recall))</td><td><b>\(Self.percent(t.f1))</b></td></tr>\n"
        }
        h += "</table>\n"

        // Per class (scikit-learn's).
        h += "<h2>Per class (scikit-learn's, whose mean is the macro F1)</h2>\n<table><tr><th class=\"l\">class</th><th class=\"l\">accepts</th><th>predicted</th><th>correct</th><th>support</th><th>precision</th><th>recall</th><th>F1</th></tr>\n"
        for c in scores.scoredClasses {
            let accepts = scoreIsTarget[c] ? scoreAccepts[c].map { classNames[$0] }.joined(separator: ", ") : "only predicted"
            h += "<tr><td class=\"l\">\(Self.escape(scores.names[c]))</td><td class=\"l\">\(Self.escape(accepts))</td><td>\(scores.predicted(c))</td><td>\(scores.truePositives(c))</td><td>\(scores.support(c))</td>"
            h += "<td>\(Self.percent(scores.precision(c)))</td><td>\(Self.percent(scores.recall(c)))</td><td><b>\(Self.percent(scores.f1(c)))</b></td></tr>\n"
        }
        h += "</table>\n"
        // Rules.
        let totalTP = ruleTruePositives
        let fired = rules.filter { $0.fired > 0 }.sorted { ($1.hits, $0.name) < ($0.hits, $1.name) }
        h += "<h2>Rules (\(fired.count) fired, by hits)</h2>\n<table><tr><th class=\"l\">rule</th><th class=\"l\">folder</th><th>hits</th><th>precision</th><th>share of true positives</th><th>fired</th></tr>\n"
        for r in fired.prefix(maxRules) {
            let cls = r.precision.map { $0 >= 0.9 ? "good" : $0 < 0.6 ? "bad" : "" } ?? ""
            h += "<tr><td class=\"l\">\(Self.escape(r.name))</td><td class=\"l\">\(Self.escape(r.folderText))</td><td>\(r.hits)</td>"
            h += "<td class=\"\(cls)\">\(Self.percent(r.precision))</td><td>\(Self.percent(totalTP > 0 ? Double(r.correct) / Double(totalTP) : nil))</td><td>\(r.fired)</td></tr>\n"
        }
        h += "</table>\n"
        if fired.count > maxRules { h += "<p class=\"note\">… and \(fired.count - maxRules) more (see the JSON).</p>\n" }
        h += "<p><b>Never fired (\(never.count)):</b> \(never.isEmpty ? "none" : never.map { Self.escape($0) }.joined(separator: ", "))</p>\n"

        // Conflicts.
        h += "<h2>Conflicts: \(Self.grouped(conflicts)) records matched by rules of different folders</h2>\n"
        let pairs = sortedConflictPairs
        if !pairs.isEmpty {
            h += "<table><tr><th>records</th><th class=\"l\">winner</th><th class=\"l\">over</th></tr>\n"
            for (pair, n) in pairs.prefix(15) {
                let w = rules[pair.winner], o = rules[pair.other]
                h += "<tr><td>\(n)</td><td class=\"l\">\(Self.escape(w.name)) → \(Self.escape(w.folder.path))</td><td class=\"l\">\(Self.escape(o.name)) → \(Self.escape(o.folder.path))</td></tr>\n"
            }
            h += "</table>\n<p class=\"note\">Examples:</p><table><tr><th class=\"l\">id</th><th class=\"l\">truth</th><th class=\"l\">winner</th><th class=\"l\">also fired</th><th class=\"l\">body</th></tr>\n"
            for e in conflictExamples.prefix(8) {
                h += "<tr><td class=\"l\">\(Self.escape(e.id))</td><td class=\"l\">\(Self.escape(e.truth ?? "–"))</td><td class=\"l\">\(Self.escape(e.winner)) → \(Self.escape(e.winnerFolder))</td>"
                h += "<td class=\"l\">\(e.others.map { "\(Self.escape($0.rule)) → \(Self.escape($0.folder))" }.joined(separator: "<br>"))</td><td class=\"l\">\(Self.escape(String(e.body.prefix(110))))</td></tr>\n"
            }
            h += "</table>\n"
        }
        h += "<p class=\"note\">smsfilter evaluate · \(String(format: "%.2f", seconds)) s</p>\n</body></html>\n"
        return h
    }

    /// Horizontal bars of the predicted folders.
    func folderChart() -> String {
        let folders = Folder.allCases
        let maxCount = max(1, folderCounts.max() ?? 1)
        let total = max(1, folderCounts.reduce(0, +))
        let rowH = 26, labelW = 230, barW = 640, top = 6
        let height = top + folders.count * rowH + 6
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(labelW + barW + 170)\" height=\"\(height)\" role=\"img\" aria-label=\"predicted folders\">\n"
        for (i, folder) in folders.enumerated() {
            let n = folderCounts[i]
            let y = top + i * rowH
            let w = n == 0 ? 0 : max(2, Int(Double(barW) * Double(n) / Double(maxCount)))
            let color = Self.folderColor(folder)
            s += "<text x=\"\(labelW - 10)\" y=\"\(y + 17)\" text-anchor=\"end\" font-size=\"14\" fill=\"\(n == 0 ? "#9aa3b2" : "#1d2330")\">\(Self.escape(folder.path))</text>"
            s += "<rect x=\"\(labelW)\" y=\"\(y + 3)\" width=\"\(w)\" height=\"\(rowH - 7)\" rx=\"3\" fill=\"\(color)\"/>"
            s += "<text x=\"\(labelW + w + 8)\" y=\"\(y + 17)\" font-size=\"13\" fill=\"#4a5366\">\(Self.grouped(n)) (\(String(format: "%.1f", 100 * Double(n) / Double(total)))%)</text>\n"
        }
        return s + "</svg>\n"
    }

    static func folderColor(_ f: Folder) -> String {
        switch f {
        case .junk: "#c2410c"
        case .unknownSenders: "#64748b"
        case .inbox: "#0f766e"
        case .promotions, .promotionsOffers, .promotionsCoupons, .promotionsOthers: "#a16207"
        default: "#1d4ed8"
        }
    }

    /// The confusion matrix as a heat map (rows: truth labels, columns: predicted classes).
    func heatMap() -> String {
        let columns = confusionColumns
        let rows = confusionRows
        guard !rows.isEmpty, !columns.isEmpty else { return "<p class=\"note\">No record had a truth label.</p>\n" }
        let labelW = 210
        let cellW = max(52, min(130, 820 / max(1, columns.count)))
        let cellH = 46
        let rotate = columns.contains { classNames[$0].count * 8 > cellW }
        let headH = rotate ? 170 : 34
        let width = labelW + columns.count * cellW + (rotate ? 90 : 20)
        let height = headH + rows.count * cellH + 10
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"confusion matrix\">\n"
        for (k, c) in columns.enumerated() {
            let x = labelW + k * cellW + cellW / 2
            if rotate {
                s += "<text transform=\"translate(\(x + 4),\(headH - 8)) rotate(-60)\" font-size=\"13\" fill=\"#1d2330\">\(Self.escape(classNames[c]))</text>\n"
            } else {
                s += "<text x=\"\(x)\" y=\"\(headH - 12)\" text-anchor=\"middle\" font-size=\"14\" font-weight=\"600\" fill=\"#1d2330\">\(Self.escape(classNames[c]))</text>\n"
            }
        }
        for (n, i) in rows.enumerated() {
            let label = labels[i]
            let y = headH + n * cellH
            let rowTotal = max(1, confusion[i].reduce(0, +))
            let accepted = mapping.targets(of: label).map { classes(of: $0) } ?? []
            let labelY = targetText(label) != label ? y + 20 : y + 28
            s += "<text x=\"\(labelW - 10)\" y=\"\(labelY)\" text-anchor=\"end\" font-size=\"14\" font-weight=\"600\" fill=\"#1d2330\">\(Self.escape(label))</text>"
            if targetText(label) != label {
                s += "<text x=\"\(labelW - 10)\" y=\"\(y + 37)\" text-anchor=\"end\" font-size=\"12\" fill=\"#4a5366\">\(Self.escape(targetText(label)))</text>"
            }
            s += "\n"
            for (k, c) in columns.enumerated() {
                let n = confusion[i][c]
                let share = Double(n) / Double(rowTotal)
                let x = labelW + k * cellW
                s += "<rect x=\"\(x + 1)\" y=\"\(y + 1)\" width=\"\(cellW - 2)\" height=\"\(cellH - 2)\" fill=\"\(Self.heat(share))\"/>"
                if accepted.contains(c) {
                    s += "<rect x=\"\(x + 3)\" y=\"\(y + 3)\" width=\"\(cellW - 6)\" height=\"\(cellH - 6)\" fill=\"none\" stroke=\"#16a34a\" stroke-width=\"3\"/>"
                }
                // Empty cells stay blank, so the eye goes to the counts.
                if n > 0 {
                    let ink = share > 0.5 ? "#ffffff" : "#1d2330"
                    s += "<text x=\"\(x + cellW / 2)\" y=\"\(y + 21)\" text-anchor=\"middle\" font-size=\"\(cellW < 70 ? 13 : 15)\" font-weight=\"600\" fill=\"\(ink)\">\(Self.grouped(n))</text>"
                    s += "<text x=\"\(x + cellW / 2)\" y=\"\(y + 37)\" text-anchor=\"middle\" font-size=\"11\" fill=\"\(ink)\">\(String(format: "%.1f", share * 100))%</text>"
                }
                s += "\n"
            }
        }
        return s + "</svg>\n"
    }

    /// White (0) to deep blue (1).
    static func heat(_ share: Double) -> String {
        let t = min(1, max(0, share)).squareRoot()
        let from = (247.0, 249.0, 252.0), to = (29.0, 78.0, 216.0)
        let r = Int(from.0 + (to.0 - from.0) * t), g = Int(from.1 + (to.1 - from.1) * t), b = Int(from.2 + (to.2 - from.2) * t)
        return String(format: "#%02x%02x%02x", r, g, b)
    }

    static func grouped(_ n: Int) -> String { groupedDigits(n) }

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
