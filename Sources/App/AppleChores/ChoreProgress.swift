import Foundation
import Glibc
import IOCore

/// The live line a chore shows on a terminal: done / total, the rate and the time left, redrawn in place (at most
/// `redrawInterval` apart). Off a terminal (a log, cron mail) it shows nothing: the summary line says it all.
final class ChoreProgress: @unchecked Sendable {
    /// The shortest time between two redraws, in nanoseconds.
    static let redrawInterval: UInt64 = 250_000_000

    private let write: (String) -> Void
    private var lastDrawn: UInt64 = 0
    private var drewAny = false

    /// - Parameter write: where the line goes (standard output by default).
    init(write: @escaping (String) -> Void = { FileHandle.standardOutput.write(Data($0.utf8)) }) {
        self.write = write
    }

    /// A progress line on standard output when it is a terminal, else nil.
    static func onTerminal() -> ChoreProgress? { isatty(STDOUT_FILENO) == 1 ? ChoreProgress() : nil }

    /// Redraws the line for `tally` unless it was redrawn less than `redrawInterval` ago.
    func update(_ tally: ChoreTally) {
        let now = MonotonicClock.now()
        guard !drewAny || now - lastDrawn >= Self.redrawInterval else { return }
        lastDrawn = now
        drewAny = true
        write("\r\u{1B}[K" + Self.line(tally))
    }

    /// Clears the line, for the summary to take its place.
    func finish() {
        if drewAny { write("\r\u{1B}[K") }
    }

    /// `validate-tokens: 1200/5000 (24%), 310/s, 12 s left, 3 throttled`.
    static func line(_ tally: ChoreTally) -> String {
        let done = tally.done
        let total = max(tally.due, done)
        let percent = total == 0 ? 100 : done * 100 / total
        let rate = tally.seconds > 0 ? Double(done) / tally.seconds : 0
        let left = rate > 0 ? String(format: "%.0f s left", Double(total - done) / rate) : "time left unknown"
        return "\(tally.chore.rawValue): \(done)/\(total) (\(percent)%), " + String(format: "%.0f/s", rate)
            + ", \(left), \(tally.throttledRetries) throttled"
    }
}
