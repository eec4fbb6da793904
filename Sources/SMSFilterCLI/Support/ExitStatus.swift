import ArgumentParser
import BatchPipeline
import MessageFilter

/// The exit statuses of `smsfilter` (SPEC §7, with the names of BSD's `sysexits.h`): the one place a status
/// is a number. Commands say which status by name (``CommandFailure``, `ExitCode(.badInput)`); the typed errors
/// of the libraries map to one here (``init(_:)``), so a new error kind is given its status once.
///
/// `Scripts/check-exit-codes.sh` (run by `make test`) fails when a numeric status appears anywhere else.
enum ExitStatus: Int32, Sendable {
    /// The command did what it was asked.
    case success = 0
    /// EX_USAGE: the command as given is refused; saying it otherwise fixes it.
    case usage = 64
    /// EX_DATAERR: an input is bad (a damaged archive, bad rules, a malformed record under `--strict`,
    /// labelled data that cannot be learnt from, a rule set that fails its check).
    case badInput = 65
    /// EX_NOINPUT: an input (an archive, a rule file, a mapping file) does not exist or cannot be opened.
    case inputMissing = 66
    /// EX_SOFTWARE: a bug, an invariant that did not hold.
    case internalError = 70
    /// EX_CANTCREAT: an output could not be created or written.
    case cannotCreate = 73

    /// The status of a failed library job: the one place ``PipelineError`` becomes a status.
    init(_ error: PipelineError) {
        if error.isInputMissing {
            self = .inputMissing
        } else if error.isOutputFailure {
            self = .cannotCreate
        } else if error.isBadInput {
            self = .badInput
        } else if error.isUsage {
            self = .usage
        } else {
            self = .internalError
        }
    }

    /// The status of a rule file that did not load: missing, or bad (unreadable, not YAML, rules in error).
    init(_ error: RuleSetLoadError) {
        self = error.kind == .fileMissing ? .inputMissing : .badInput
    }

    /// What the status means in a help text's "Exit status:" paragraph when the command says nothing more.
    var helpMeaning: String {
        switch self {
        case .success: "success"
        case .usage: "usage"
        case .badInput: "bad input"
        case .inputMissing: "input missing"
        case .internalError: "internal error"
        case .cannotCreate: "an output could not be written"
        }
    }

    /// The last paragraph of every subcommand's help, the one place a help text says a status's number:
    /// `Exit status: 0 success, 64 usage, …`, the `statuses` a command can end with in order, each with its
    /// ``helpMeaning`` or what `meanings` says it means for that command.
    static func helpSection(_ statuses: [ExitStatus], saying meanings: [ExitStatus: String] = [:]) -> String {
        "Exit status: " + statuses.map { "\($0.rawValue) \(meanings[$0] ?? $0.helpMeaning)" }.joined(separator: ", ") + "."
    }

    /// The status of a process ended by the signal `sig`, as a shell reports it (128 + the signal number).
    static func signalled(_ sig: Int32) -> Int32 { 128 + sig }
}

extension ExitCode {
    /// The ArgumentParser exit code of `status`.
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}

extension PipelineError {
    /// The exit status of a failed job (SPEC §7): ``ExitStatus/init(_:)``.
    var exitCode: ExitStatus { ExitStatus(self) }
}
