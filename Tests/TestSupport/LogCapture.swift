import Logging
import Synchronization

/// Captures every log line (level, message, metadata) at `.trace`, so tests can check what is and is not logged.
package final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    package init() {}

    package var all: [String] { lines.withLock { $0 } }
    package var text: String { all.joined(separator: "\n") }

    package func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Whether a line contains every one of `parts`.
    package func contains(_ parts: String...) -> Bool { all.contains { line in parts.allSatisfy(line.contains) } }

    /// A logger at `.trace` whose every line lands here.
    package func logger(_ label: String = "siwa") -> Logger {
        var logger = Logger(label: label) { _ in LogCaptureHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }
}

package struct LogCaptureHandler: LogHandler {
    let capture: LogCapture
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .trace

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        capture.append("\(event.level) [\(event.source)] \(event.message) "
            + "\(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    }
}
