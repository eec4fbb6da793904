// MARK: Internal API
//
// Writes the labels. Every fixed piece of text (names of actions, sub-actions, folders and rules, as JSON,
// CSV and XML) is rendered once per run, so labelling a record is a few memcpys.

import MessageFilter

final class _Emitter: @unchecked Sendable {
    let ruleSet: RuleSet
    let folders: [Folder]
    let explain: Bool
    let filterKey: [UInt8]
    /// CSV's field separator (``RecordFormat/delimiter``); TSV's is always a tab.
    let csvSeparator: UInt8
    private let actionJSON: [[UInt8]]
    private let subActionJSON: [[UInt8]]
    private let folderJSON: [[UInt8]]
    private let ruleJSON: [[UInt8]]
    private let actionText: [[UInt8]]
    private let subActionText: [[UInt8]]
    private let folderText: [[UInt8]]
    private let ruleText: [[UInt8]]
    /// Rule names as CSV and TSV cells: formula-neutralised and quoted (``_Emitter/cell(_:quoting:)``).
    private let ruleCSV: [[UInt8]]
    private let ruleTSV: [[UInt8]]
    private let labelKeyJSON: [UInt8]

    init(ruleSet: RuleSet, filterKey: String, explain: Bool, csvSeparator: UInt8 = UInt8(ascii: ",")) {
        self.ruleSet = ruleSet
        self.csvSeparator = csvSeparator
        self.explain = explain
        folders = Folder.allCases.map { $0 }
        let json = _ByteBuffer.jsonString
        let keyBuffer = _ByteBuffer(capacity: 32)
        keyBuffer.appendJSONString(filterKey)
        labelKeyJSON = keyBuffer.copyBytes() + Array(": ".utf8)
        self.filterKey = Array(filterKey.utf8)
        actionJSON = Action.allCases.sorted { $0.rawValue < $1.rawValue }.map { json("\($0)") }
        var subJSON = Array(repeating: Array("null".utf8), count: 12 + 1)
        var subText = Array(repeating: [UInt8](), count: 12 + 1)
        for sub in SubAction.allCases where sub != .none {
            subJSON[_Emitter.subIndex(sub)] = json("\(sub)")
            subText[_Emitter.subIndex(sub)] = Array("\(sub)".utf8)
        }
        subActionJSON = subJSON
        subActionText = subText
        folderJSON = folders.map { json($0.path) }
        ruleJSON = ruleSet.ruleNames.map { json($0) }
        actionText = Action.allCases.sorted { $0.rawValue < $1.rawValue }.map { Array("\($0)".utf8) }
        folderText = folders.map { Array($0.path.utf8) }
        ruleText = ruleSet.ruleNames.map { Array($0.utf8) }
        ruleCSV = ruleText.map { _Emitter.cell($0, csv: true, separator: csvSeparator) }
        ruleTSV = ruleText.map { _Emitter.cell($0, csv: false) }
    }

    /// A value the tool adds to a CSV/TSV row, safe for spreadsheets and for the row's framing:
    /// - a value that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or
    ///   carriage return: OWASP's list) gets a leading `'`, so `=HYPERLINK(…)` shows as text;
    /// - CSV: quoted (RFC 4180, quotes doubled) when it holds the separator (a comma by default), quote, tab, CR
    ///   or LF;
    ///   TSV: quoted the same way when it holds a tab, CR or LF, which would otherwise split the row.
    /// Rule names cannot hold control characters (the rule parser refuses them); this is the second wall.
    static func cell(_ text: [UInt8], csv: Bool, separator: UInt8 = UInt8(ascii: ",")) -> [UInt8] {
        var value = text
        if let first = value.first, [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D].contains(first) {
            value.insert(UInt8(ascii: "'"), at: 0)
        }
        let special: [UInt8] = csv ? [separator, UInt8(ascii: "\""), 0x09, 0x0A, 0x0D] : [0x09, 0x0A, 0x0D]
        guard value.contains(where: special.contains) else { return value }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        for b in value {
            if b == UInt8(ascii: "\"") { quoted.append(b) }
            quoted.append(b)
        }
        quoted.append(UInt8(ascii: "\""))
        return quoted
    }

    /// 0 for `.none`, 1…9 transactional, 10…12 promotional.
    @inline(__always)
    static func subIndex(_ sub: SubAction) -> Int {
        let raw = sub.rawValue
        if raw == 0 { return 0 }
        return raw < 20000 ? 1 + raw - 10000 : 10 + raw - 20000
    }

    @inline(__always)
    func folderIndex(_ folder: Folder) -> Int {
        for i in 0..<folders.count where folders[i] == folder { return i }
        return 0
    }

    /// `"filter": {…}`.
    @inline(__always)
    func appendKeyedObject(_ v: Verdict, _ out: _ByteBuffer) {
        out.append(labelKeyJSON)
        appendObject(v, out)
    }

    /// `{"action": …, "subAction": …, "folder": …, "rule": …}` (+ `dropped`, `label`, explain keys).
    @inline(__always)
    func appendObject(_ v: Verdict, _ out: _ByteBuffer) {
        out.append("{\"action\": ")
        out.append(actionJSON[v.action.rawValue])
        out.append(", \"subAction\": ")
        out.append(subActionJSON[_Emitter.subIndex(v.subAction)])
        out.append(", \"folder\": ")
        out.append(folderJSON[folderIndex(v.folder)])
        out.append(", \"rule\": ")
        if v.rule >= 0 { out.append(ruleJSON[Int(v.rule)]) } else { out.append("null") }
        if let dropped = v.dropped {
            out.append(dropped == .invalidPair ? ", \"dropped\": \"invalidPair\"" : ", \"dropped\": \"notDeclared\"")
        }
        if v.label >= 0 {
            out.append(", \"label\": ")
            out.appendJSONString(ruleSet.label(at: Int(v.label)))
        }
        if explain && v.phrase >= 0 {
            out.append(", \"phrase\": ")
            out.appendJSONString(ruleSet.phrase(at: Int(v.phrase)))
            out.append(", \"span\": [")
            out.appendDecimal(Int(v.matchStart))
            out.append(", ")
            out.appendDecimal(Int(v.matchEnd))
            out.append("]")
        }
        out.append("}")
    }

    /// `,action,subAction,folder,rule` for CSV/TSV (only a rule name can need quoting or neutralising).
    /// `separator`: a tab for TSV, ``csvSeparator`` for CSV.
    func appendColumns(_ v: Verdict, separator: UInt8, _ out: _ByteBuffer) {
        out.append(separator)
        out.append(actionText[v.action.rawValue])
        out.append(separator)
        out.append(subActionText[_Emitter.subIndex(v.subAction)])
        out.append(separator)
        appendDelimited(folderText[folderIndex(v.folder)], separator, out)
        out.append(separator)
        if v.rule >= 0 { out.append(separator != 0x09 ? ruleCSV[Int(v.rule)] : ruleTSV[Int(v.rule)]) }
    }

    /// The names of the CSV/TSV label columns (`filter_action`, `filter_subAction`, `filter_folder`,
    /// `filter_rule`).
    var labelColumnNames: [String] {
        let key = String(decoding: filterKey, as: UTF8.self)
        return ["action", "subAction", "folder", "rule"].map { "\(key)_\($0)" }
    }

    /// One label cell (0 action, 1 sub-action, 2 folder, 3 rule), for a row whose header already has it.
    func appendCell(_ column: Int, _ v: Verdict, separator: UInt8, _ out: _ByteBuffer) {
        switch column {
        case 0: out.append(actionText[v.action.rawValue])
        case 1: out.append(subActionText[_Emitter.subIndex(v.subAction)])
        case 2: appendDelimited(folderText[folderIndex(v.folder)], separator, out)
        default: if v.rule >= 0 { out.append(separator != 0x09 ? ruleCSV[Int(v.rule)] : ruleTSV[Int(v.rule)]) }
        }
    }

    private func appendDelimited(_ text: [UInt8], _ separator: UInt8, _ out: _ByteBuffer) {
        text.withUnsafeBytes { out.appendDelimitedField($0, quoting: separator != 0x09, separator: separator) }
    }

    /// ` filter_action="…" filter_subAction="…" filter_folder="…" filter_rule="…"` for XML.
    func appendAttributes(_ v: Verdict, _ out: _ByteBuffer) {
        func attribute(_ name: StaticString, _ value: [UInt8]) {
            out.append(UInt8(ascii: " "))
            out.append(filterKey)
            out.append(name)
            out.append("=\"")
            value.withUnsafeBytes { out.appendXMLAttributeValue($0) }
            out.append(UInt8(ascii: "\""))
        }
        attribute("_action", actionText[v.action.rawValue])
        attribute("_subAction", subActionText[_Emitter.subIndex(v.subAction)])
        attribute("_folder", folderText[folderIndex(v.folder)])
        attribute("_rule", v.rule >= 0 ? ruleText[Int(v.rule)] : [])
    }

    /// `{"id": …, "filter": {…}}\n` (`"line": N` when the record has no id).
    @inline(__always)
    func appendLabelLine(_ r: _Record, _ v: Verdict, _ input: UnsafeRawBufferPointer, _ firstLine: Int, _ out: _ByteBuffer) {
        if r.idEnd >= r.idStart {
            out.append("{\"id\": ")
            if r.idIsJSON {
                out.append(input, r.idStart..<r.idEnd)
            } else {
                out.appendJSONString(UnsafeRawBufferPointer(rebasing: input[r.idStart..<r.idEnd]))
            }
        } else {
            out.append("{\"line\": ")
            out.appendDecimal(firstLine + r.relativeLine)
        }
        out.append(", ")
        appendKeyedObject(v, out)
        out.append("}\n")
    }
}
