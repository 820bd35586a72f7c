import Foundation
import Testing

/// Locates the shared test vectors: `$SIWA_VECTORS`, else `<package root>/../shared/vectors`.
/// They are never copied into the repository.
package enum TestVectors {
    package static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["SIWA_VECTORS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors")
    }()

    package static var isPresent: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("wycheproof").path)
    }

    package static var isCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    /// The file's bytes, or nil (after a note) when vectors are absent outside CI.
    /// Under CI a missing file is a recorded failure.
    package static func load(_ relativePath: String) -> Data? {
        let url = directory.appendingPathComponent(relativePath)
        if let data = try? Data(contentsOf: url) { return data }
        if isCI {
            Issue.record("test vectors missing at \(url.path) (CI is set)")
        } else {
            print("note: skipping \(relativePath): vectors not found at \(directory.path)")
        }
        return nil
    }
}

extension [UInt8] {
    /// Bytes from hex digits (test vectors); stops at an odd trailing digit.
    package init(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(UInt8(Self.nibble(high) << 4 | Self.nibble(low)))
        }
        self = bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: 0
        }
    }
}

extension TestVectors {
    /// The vectors folder `name`, or nil when it is missing: a recorded failure under CI, a printed note otherwise.
    /// - Parameter report: false where no test is running yet (argument lists built at discovery).
    package static func folder(_ name: String, report: Bool = true) -> URL? {
        let folder = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: folder.path) { return folder }
        guard report else { return nil }
        if isCI {
            Issue.record("test vectors missing at \(folder.path) (CI is set)")
        } else {
            print("note: test vectors missing at \(folder.path); skipping")
        }
        return nil
    }
}

extension TestVectors {
    /// Whether the vectors folder or file `name` exists.
    package static func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite that reads the shared vectors `name` only where they are present, so that elsewhere it
    /// is reported as skipped rather than passing on nothing; under CI it always runs, and the missing corpus is a
    /// recorded failure (`TestVectors.load`, `TestVectors.folder`).
    package static func vectors(_ name: String) -> Self {
        .enabled(if: TestVectors.isCI || TestVectors.exists(name),
                 Comment(rawValue: "test vectors \(name) not found at \(TestVectors.directory.path)"))
    }
}
