import Foundation
import Testing

/// `.env.example` documents every variable the configuration reads: each name that `Configuration.load` passes to
/// the environment (`env.get("NAME")`, `Self.integer(env, "NAME", …)` and the like) appears there as `NAME=` or
/// `#NAME=`. Found by an audit: `RESOURCES_PATH` and `SIWA_EXTRA_CA_FILE` were read and documented nowhere.
struct EnvExampleTests {
    static let root = ReadmeLayoutTests.root

    /// The variable names the configuration's sources read from `env`.
    static func namesRead() throws -> Set<String> {
        let folder = root.appendingPathComponent("Sources/App")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasPrefix("Configuration") && $0.hasSuffix(".swift") }
        let pattern = try Regex(#"env(?:\.get\(|, )"([A-Z][A-Z0-9_]+)""#)
        var names = Set<String>()
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    @Test func everyVariableTheConfigurationReadsIsInEnvExample() throws {
        let example = try String(contentsOf: Self.root.appendingPathComponent(".env.example"), encoding: .utf8)
        let documented = Set(example.split(separator: "\n").compactMap { line -> String? in
            let entry = line.hasPrefix("#") ? line.dropFirst() : line[...]
            guard let equals = entry.firstIndex(of: "="), !entry[..<equals].contains(" ") else { return nil }
            return String(entry[..<equals])
        })
        let read = try Self.namesRead()
        #expect(read.count >= 30, "the scan finds the configuration's reads: \(read.sorted())")
        #expect(read.subtracting(documented).isEmpty, "read but not in .env.example: \(read.subtracting(documented).sorted())")
    }

    /// README's "Configuration" lists every variable the configuration reads. Found by an audit: six were missing.
    @Test func readmesConfigurationSectionNamesEveryVariable() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.split(separator: "\n## ").first { $0.hasPrefix("Configuration\n") })
        let missing = try Self.namesRead().filter { !section.contains("`\($0)`") }
        #expect(missing.isEmpty, "not in README's Configuration: \(missing.sorted())")
    }
}
