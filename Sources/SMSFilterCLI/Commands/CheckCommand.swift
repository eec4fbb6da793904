import ArgumentParser
import Foundation
import MessageFilter

extension RuleCheckReport.Purpose: ExpressibleByArgument {}

/// `smsfilter check RULES [--target ios] [--json]`
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a rule file in three phases (resolve, confirm, verdict) and say whether it is ready.",
        discussion: """
            Warnings (a sub-action that iOS would drop, a rule that can never fire, a keyword claimed by rules \
            of different folders) leave the rules ready; --strict \
            makes them a failure too, for a CI step that must keep a rule file free of them.

            Example:
              smsfilter check --target ios --strict rules.yaml

            \(ExitStatus.helpSection(
            [.success, .usage, .badInput, .inputMissing], saying: [
                .success: "ready", .badInput: "failure (the report says why; with --strict, warnings too)", .inputMissing: "rule file missing",
            ]))
            """
    )

    @Argument(help: "The rule file to check (YAML or .smsf; embedded:rules: the built-in one).")
    var rules: String

    @Option(name: .long, help: "What the rules must be fit for: offline or ios (at most five sub-actions).")
    var target: RuleCheckReport.Purpose = .offline

    @OptionGroup var jsonOption: JSONOption

    @OptionGroup var quietOption: QuietOption

    @Flag(name: .long, help: "Fail (\(ExitStatus.badInput.rawValue)) on warnings too, not only on errors.")
    var strict = false

    func run() throws {
        let report: RuleCheckReport
        do {
            report = try RuleChecker.check(path: rules, target: target)
        } catch {
            throw CommandFailure(loadingRules: rules, error)
        }
        if jsonOption.json {
            Console.printSummaryJSON(Self.jsonText(report, strict: strict), plan: nil)
        } else if !quietOption.quiet {
            Console.stdout(Self.text(report, strict: strict))
        }
        if Self.verdict(report, strict: strict) == .failure { throw ExitCode(.badInput) }
    }

    /// The report's verdict, or failure under `--strict` when it has warnings.
    static func verdict(_ r: RuleCheckReport, strict: Bool) -> RuleCheckReport.Outcome {
        strict && r.findings.contains { $0.severity == .warning } ? .failure : r.verdict
    }

    /// `(--strict: 2 warnings)` when `--strict` alone makes the verdict a failure, else nothing.
    static func strictNote(_ r: RuleCheckReport, strict: Bool) -> String? {
        guard r.verdict == .ready, verdict(r, strict: strict) == .failure else { return nil }
        let n = r.findings.filter { $0.severity == .warning }.count
        return "--strict: \(n) warning\(n == 1 ? "" : "s")"
    }

    static func text(_ r: RuleCheckReport, strict: Bool = false) -> String {
        var out = ""
        let resolveErrors = r.findings.filter { $0.phase == .resolve }
        out += "resolve: "
        if resolveErrors.isEmpty, let set = r.ruleSet {
            let caps = set.capabilities
            out += "\(set.definition.rules.count) rules, \(set.phraseCount) phrases, "
            if let m = set.definition.model { out += "model \"\(m.name)\" (\(m.phrases.count) phrases × \(m.targets.count) targets, priority \(m.priority)), " }
            if set.definition.normalization != .standard { out += "normalize \(set.definition.normalization.name), " }
            out += "capabilities: "
            out += caps.isDeclared ? caps.subActions.map(\.name).joined(separator: ", ") : "none declared (all twelve)"
            if !set.definition.blockList.isEmpty || !set.definition.identificationNumbers.isEmpty {
                out += ", block list \(set.definition.blockList.count), identification list \(set.definition.identificationNumbers.count)"
            }
            out += "\n"
        } else if resolveErrors.isEmpty {
            out += "ok\n"
        } else {
            out += "\(resolveErrors.count) error\(resolveErrors.count == 1 ? "" : "s")\n"
            for f in resolveErrors { out += "  error: \(f)\n" }
        }
        let confirm = r.findings.filter { $0.phase == .confirm }
        if resolveErrors.isEmpty {
            out += "confirm (target \(r.target.rawValue)): "
            let errors = confirm.filter { $0.severity == .error }.count
            let warnings = confirm.count - errors
            out += confirm.isEmpty ? "ok\n" : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n"
            for f in confirm { out += "  \(f.severity.rawValue): \(f)\n" }
        }
        out += "verdict: \(verdict(r, strict: strict).rawValue)"
        if let note = strictNote(r, strict: strict) {
            out += " (\(note))"
        } else if let set = r.ruleSet, r.verdict == .ready {
            out += " (checksum \(set.checksum))"
        }
        return out + "\n"
    }

    static func jsonText(_ r: RuleCheckReport, strict: Bool = false) -> String {
        var o: [String: Any] = [
            "file": r.file, "target": r.target.rawValue, "verdict": verdict(r, strict: strict).rawValue, "strict": strict,
            "findings": r.findings.map { f -> [String: Any] in
                ["phase": f.phase.rawValue, "severity": f.severity.rawValue, "file": f.file, "line": f.line,
                 "field": f.field, "message": f.message]
            },
        ]
        if let set = r.ruleSet {
            o["rules"] = set.definition.rules.count
            o["normalize"] = set.definition.normalization.name
            if let m = set.definition.model { o["model"] = ["name": m.name, "phrases": m.phrases.count, "targets": m.targets.map(\.name), "priority": m.priority] as [String: Any] }
            o["phrases"] = set.phraseCount
            o["checksum"] = set.checksum
            o["capabilities"] = set.capabilities.isDeclared ? set.capabilities.subActions.map(\.name) : NSNull()
        }
        return JSONText.pretty(o)
    }
}
