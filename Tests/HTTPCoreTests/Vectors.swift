import Foundation
import Testing

/// Locates the shared test vectors: `$SIWA_VECTORS`, else `<package root>/../shared/vectors`.
/// When missing, fails under CI and returns nil (test skipped with a note) otherwise.
enum Vectors {
    /// - Parameter report: false where no test is running yet (argument lists built at discovery).
    static func directory(_ name: String, report: Bool = true, filePath: String = #filePath) -> URL? {
        let root: URL
        if let path = ProcessInfo.processInfo.environment["SIWA_VECTORS"] {
            root = URL(fileURLWithPath: path)
        } else {
            root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/vectors")
        }
        let folder = root.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: folder.path) { return folder }
        guard report else { return nil }
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("test vectors missing at \(folder.path)")
        } else {
            print("note: test vectors missing at \(folder.path); skipping")
        }
        return nil
    }
}
