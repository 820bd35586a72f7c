import Foundation
import Testing

/// Locates the shared test vectors: `$SIWA_VECTORS`, else `<package root>/../shared/vectors`.
/// They are never copied into the repository.
enum TestVectors {
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["SIWA_VECTORS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/vectors")
    }()

    static var isPresent: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("wycheproof").path)
    }

    static var isCI: Bool { !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty }

    /// The file's bytes, or nil (after a note) when vectors are absent outside CI.
    /// Under CI a missing file is a recorded failure.
    static func load(_ relativePath: String) -> Data? {
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
    init(hex: String) {
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
