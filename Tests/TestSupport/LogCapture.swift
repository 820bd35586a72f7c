import Logging
import Synchronization

/// Captures every log line (level, message, metadata) at `.trace`, so tests can check what is and is not logged.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var all: [String] { lines.withLock { $0 } }
    public var text: String { all.joined(separator: "\n") }

    public func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Whether a line contains every one of `parts`.
    public func contains(_ parts: String...) -> Bool { all.contains { line in parts.allSatisfy(line.contains) } }

    /// A logger at `.trace` whose every line lands here.
    public func logger(_ label: String = "siwa") -> Logger {
        var logger = Logger(label: label) { _ in LogCaptureHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }
}

public struct LogCaptureHandler: LogHandler {
    let capture: LogCapture
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        capture.append("\(event.level) [\(event.source)] \(event.message) "
            + "\(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    }
}
