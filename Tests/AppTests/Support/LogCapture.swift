import Logging
import Synchronization

/// Captures every log line (level, message, metadata) at `.trace`, so tests can check what is and is not logged.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }
    var text: String { all.joined(separator: "\n") }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Whether a line contains every one of `parts`.
    func contains(_ parts: String...) -> Bool { all.contains { line in parts.allSatisfy(line.contains) } }

    func logger(_ label: String = "siwa") -> Logger {
        var logger = Logger(label: label) { _ in LogCaptureHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct LogCaptureHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        capture.append("\(event.level) [\(event.source)] \(event.message) "
            + "\(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    }
}
