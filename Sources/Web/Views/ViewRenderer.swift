import Foundation
import Mustache

/// Mustache templates loaded once from a directory and rendered many times (swift-mustache).
///
/// Every `*.mustache` file under the directory is a template named by its path without the extension
/// (`login`, `partials/head`); templates use each other as partials (`{{> head}}`) or parents
/// (`{{< layout}}{{$ body}}...{{/ body}}{{/ layout}}`). Values are HTML-escaped unless written `{{{triple}}}`, by
/// `HTMLEscaping`, one Unicode scalar at a time (`ScalarHTML`).
package struct ViewRenderer: Sendable {
    private let library: MustacheLibrary
    /// The names of the loaded templates, sorted.
    package let templateNames: [String]

    /// Loads every `.mustache` file under `directory`; throws when it is missing or a template does not parse.
    package init(directory: String) throws {
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue,
              let enumerator = FileManager.default.enumerator(atPath: root) else {
            throw ViewError.directoryNotFound(directory)
        }
        var sources: [String: String] = [:]
        for case let relative as String in enumerator where relative.hasSuffix(".mustache") {
            let url = URL(fileURLWithPath: root).appendingPathComponent(relative)
            guard let data = FileManager.default.contents(atPath: url.path) else { continue }
            sources[String(relative.dropLast(".mustache".count))] = String(decoding: data, as: UTF8.self)
        }
        try self.init(templates: sources)
    }

    /// Parses templates given as text, name to source.
    package init(templates: [String: String]) throws {
        MustacheContentTypes.register(ScalarHTML(), named: ScalarHTML.name)
        var library = MustacheLibrary()
        for (name, source) in templates {
            do {
                // Each template, partials included (swift-mustache gives a partial its default escaping again),
                // begins with the pragma that selects `ScalarHTML`, before anything it renders.
                try library.register(ScalarHTML.pragma + source, named: name)
            } catch {
                throw ViewError.invalidTemplate(name: name, message: String(describing: error))
            }
        }
        self.library = library
        templateNames = templates.keys.sorted()
    }

    /// Whether a template is registered under `name`.
    package func hasTemplate(named name: String) -> Bool { library.getTemplate(named: name) != nil }

    /// Renders template `name` with `context`, whose stored properties (or dictionary keys) the template reads.
    /// - Throws: `ViewError.templateNotFound` naming the template when there is none by that name.
    package func render(_ name: String, _ context: some Sendable) throws -> View {
        let reflected: Any = ReflectedContext(context) ?? context
        guard let html = library.render(reflected, withTemplate: name) else { throw ViewError.templateNotFound(name) }
        return View(html: html)
    }

    /// Renders template `name` with an empty context.
    package func render(_ name: String) throws -> View {
        try render(name, [String: String]())
    }
}

/// HTML escaping for templates: `HTMLEscaping.escape`, which looks at each Unicode scalar. swift-mustache's own looks
/// up whole `Character`s, so a `"` or `>` followed by a combining mark (U+0301), or a `<` after a prepended
/// mark (U+0600), is one grapheme that is not in its table and went out unescaped: a name Apple posted could end an
/// attribute and add markup. Found by an audit.
struct ScalarHTML: MustacheContentType {
    /// The name the pragma selects it by.
    static let name = "SIWA_SCALAR_HTML"
    /// The pragma put before every template.
    static let pragma = "{{% CONTENT_TYPE: \(name)}}"

    func escapeText(_ text: String) -> String { HTMLEscaping.escape(text) }
}

/// Why a page could not be rendered.
package enum ViewError: Error, Equatable, CustomStringConvertible {
    case templateNotFound(String)
    case directoryNotFound(String)
    case invalidTemplate(name: String, message: String)
    case noRenderer

    package var description: String {
        switch self {
        case .templateNotFound(let name): "No template named '\(name)'"
        case .directoryNotFound(let path): "Template directory '\(path)' not found"
        case .invalidTemplate(let name, let message): "Template '\(name)' does not parse: \(message)"
        case .noRenderer: "No views configured: set Application.views"
        }
    }
}
