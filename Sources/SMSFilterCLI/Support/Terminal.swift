import BatchPipeline
import MessageFilter
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Text for a terminal: what the tool prints can never move the cursor, change colours, retitle the window
/// or reorder text, whatever file names, header rows or rule names it repeats.
enum TerminalText {
    /// `text` with every control character shown as an escape: C0 controls but newline and tab as `\xHH`
    /// (carriage return as `\r`), DEL as `\x7F`, C1 controls (U+0080–U+009F, which some terminals obey as
    /// escape sequences) and the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069, which
    /// reorder what is shown) as `\u{HHHH}`.
    static func escaped(_ text: String) -> String {
        EchoedText.escaped(text, where: needsEscape)
    }

    @inline(__always)
    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0A, 0x09: return false
        case 0..<0x20, 0x7F, 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The width of the terminal on `fd` in columns (nil when `fd` is not a terminal or says 0).
    static func columns(_ fd: Int32) -> Int? {
        var size = winsize()
        #if canImport(Glibc)
        let request = UInt(TIOCGWINSZ)
        #else
        let request = TIOCGWINSZ
        #endif
        guard ioctl(fd, request, &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Whether the terminal understands cursor and erase sequences (`TERM` unset, empty or `dumb` does not).
    static var isCapable: Bool {
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        return !term.isEmpty && term != "dumb"
    }
}

/// A live progress line on standard error, redrawn in place (only when stderr is a terminal).
///
/// The line is cut to the terminal's width, read at each redraw (a line that wraps could not be redrawn in
/// place); on a terminal without cursor control (`TERM=dumb` or unset) it is redrawn with a carriage return
/// and spaces only, never an escape sequence.
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var shownWidth = 0
    private var shown = false
    private let capable = TerminalText.isCapable

    func update(_ p: BatchPipeline.Progress) {
        let mb = Double(p.bytes) / 1e6
        var text = String(format: "%@ records  %.1f MB  %.1f MB/s  %.0f rec/s  %@",
            Self.grouped(p.records), mb, p.seconds > 0 ? mb / p.seconds : 0,
            p.seconds > 0 ? Double(p.records) / p.seconds : 0, Self.clock(p.seconds))
        if let total = p.inputBytesTotal, total > 0, p.inputBytesRead > 0, p.seconds > 1 {
            let fraction = min(1, Double(p.inputBytesRead) / Double(total))
            let eta = p.seconds / fraction * (1 - fraction)
            text += String(format: "  %3.0f%%  ETA %@", fraction * 100, Self.clock(eta))
        }
        if p.fileCount > 1 { text += "  file \(p.fileIndex + 1)/\(p.fileCount)" }
        if p.rejected > 0 { text += "  \(Self.grouped(p.rejected)) rejected" }
        show(text)
    }

    /// Draws `text` (ASCII) in place of the previous line.
    func show(_ text: String) {
        // One column is left free: a line that fills the last column wraps on some terminals.
        let width = max(1, (TerminalText.columns(2) ?? 80) - 1)
        let line = String(text.prefix(width))
        lock.lock()
        defer { lock.unlock() }
        if capable {
            Self.write("\r\u{1B}[2K" + line)
        } else {
            let pad = max(0, min(shownWidth, width) - line.count)
            Self.write("\r" + line + String(repeating: " ", count: pad))
        }
        shownWidth = line.count
        shown = true
    }

    func clear() {
        lock.lock()
        defer { lock.unlock() }
        guard shown else { return }
        if capable {
            Self.write("\r\u{1B}[2K")
        } else {
            Self.write("\r" + String(repeating: " ", count: shownWidth) + "\r")
        }
        shown = false
        shownWidth = 0
    }

    /// The progress line's own bytes (numbers and the tool's escape sequences): written as they are.
    private static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%02d:%02d", s / 60, s % 60)
    }

    static func grouped(_ n: Int) -> String { groupedDigits(n) }
}

extension ProgressLine {
    /// Runs a library job (classify, export, evaluate, learn) with a progress line on standard error when
    /// `shown`: `job` puts the callback it is given (nil when not shown) into its options. The line is cleared
    /// before anything else is printed; a failure runs `abandon` (outputs opened outside the job), then
    /// becomes the command's error with the job's exit status.
    static func running<Result>(
        shown: Bool, abandon: () -> Void = {}, _ job: ((@Sendable (BatchPipeline.Progress) -> Void)?) throws(PipelineError) -> Result
    ) throws -> Result {
        let line = ProgressLine()
        var progress: (@Sendable (BatchPipeline.Progress) -> Void)?
        if shown { progress = { line.update($0) } }
        do throws(PipelineError) {
            let result = try job(progress)
            line.clear()
            return result
        } catch {
            line.clear()
            abandon()
            throw CommandFailure(error.description, error.exitCode)
        }
    }
}
