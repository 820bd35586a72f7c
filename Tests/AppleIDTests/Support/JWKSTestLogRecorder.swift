import Logging
import Synchronization

/// Captures log lines (message and metadata) so tests can check what is and is not logged.
final class JWKSTestLogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var logger: Logger {
        Logger(label: "test") { _ in JWKSTestLogHandler(recorder: self) }
    }
}

struct JWKSTestLogHandler: LogHandler {
    let recorder: JWKSTestLogRecorder
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        let all = self.metadata.merging(metadata ?? [:]) { $1 }
        recorder.append("\(level) \(message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    }
}
