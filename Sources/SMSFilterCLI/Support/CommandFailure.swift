import ArgumentParser
import MessageFilter

/// Why a command failed: the message printed as `smsfilter: error: <message>` and the status it exits with.
/// Commands throw it; ``ErrorReport`` prints it, the one place an error is printed. User text in `message`
/// (a file name, a value) is escaped by whoever builds the message (``EchoedText``).
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    let status: ExitStatus

    init(_ message: String, _ status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// A rule file (`--rules`, check's and export-extension's argument) that did not load: missing or bad.
    init(loadingRules path: String, _ error: any Error) {
        let status = (error as? RuleSetLoadError).map(ExitStatus.init) ?? .badInput
        let message = status == .inputMissing ? "\(EchoedText.escaped(path)): no such rule file" : "\(error)"
        self.init(message, status)
    }

    var description: String { message }
}
