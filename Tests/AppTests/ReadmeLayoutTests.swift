import Foundation
import Testing

/// The README's "Layout" is true of the package: every module it names is a folder of `Sources/` and every folder
/// there is named, and its dependency arrows are the ones `Package.swift` declares, no more and no fewer.
struct ReadmeLayoutTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The two code blocks of the README's "Layout": the folders, then the arrows.
    static func layoutBlocks() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Layout\n").dropFirst().first)
            .components(separatedBy: "\n## ").first ?? ""
        let parts = section.components(separatedBy: "```")
        return stride(from: 1, to: parts.count, by: 2).map { parts[$0] }
    }

    /// The modules the folder block names under `Sources/`: `  Name/` at the start of a line, before the two spaces
    /// that begin its description, and the system libraries' line `  CSQLite/, CLibPQ/, …`.
    static func namedModules(_ block: String) -> Set<String> {
        var names = Set<String>()
        for line in block.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
            let head = String(line.dropFirst(2)).components(separatedBy: "  ").first ?? ""
            for item in head.split(separator: ",") {
                let name = item.trimmingCharacters(in: .whitespaces)
                if name.hasSuffix("/") { names.insert(String(name.dropLast())) }
            }
        }
        return names
    }

    /// `Name -> A, B` lines.
    static func arrows(_ block: String) -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for line in block.split(separator: "\n") {
            let sides = line.components(separatedBy: "->")
            guard sides.count == 2 else { continue }
            let targets = sides[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.hasPrefix("(") }
            result[sides[0].trimmingCharacters(in: .whitespaces)] = Set(targets)
        }
        return result
    }

    /// Each target of `Package.swift` with the package's own modules it depends on (products of other packages left
    /// out).
    static func declaredDependencies() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget)\(name: "(\w+)"(?:, dependencies: \[([^\]]*)\])?"#)
        var result: [String: Set<String>] = [:]
        let text = manifest as NSString
        for match in pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let name = text.substring(with: match.range(at: 1))
            var dependencies = Set<String>()
            if match.range(at: 2).location != NSNotFound {
                let list = text.substring(with: match.range(at: 2))
                for item in list.split(separator: ",") {
                    let trimmed = item.trimmingCharacters(in: .whitespacesAndNewlines)
                    if trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") {
                        dependencies.insert(String(trimmed.dropFirst().dropLast()))
                    }
                }
            }
            result[name] = dependencies
        }
        return result
    }

    static func sourceFolders() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path))
    }

    @Test func everyModuleNamedIsAFolderOfSourcesAndEveryFolderIsNamed() throws {
        let blocks = try Self.layoutBlocks()
        try #require(blocks.count >= 2)
        let named = Self.namedModules(blocks[0])
        let folders = try Self.sourceFolders()
        #expect(named == folders,
                "named, not there: \(named.subtracting(folders)); there, not named: \(folders.subtracting(named))")
    }

    @Test func theArrowsAreTheDependenciesThePackageDeclares() throws {
        let arrows = Self.arrows(try Self.layoutBlocks()[1])
        let declared = try Self.declaredDependencies()
        #expect(!arrows.isEmpty)
        for (module, imports) in arrows {
            #expect(declared[module] == imports,
                    "\(module): README says \(imports.sorted()), Package.swift \(declared[module]?.sorted() ?? [])")
        }
        let undrawn = try Self.sourceFolders().filter { !$0.hasPrefix("C") || $0 == "CryptoCore" }.subtracting(arrows.keys)
        #expect(undrawn.isEmpty, "modules without their arrows: \(undrawn.sorted())")
    }
}
