import Foundation
import HTTPCore
import Testing
@testable import Web

struct ViewRendererTests {
    struct LoginContext: Codable, Sendable {
        let title: String
        let clientID: String
        let user: User?
        struct User: Codable, Sendable { let name: String }
    }

    static let templates = [
        "layout": "<html><title>{{title}}</title><body>{{$content}}default{{/content}}</body></html>",
        "login": "{{<layout}}{{$content}}<p data-client=\"{{clientID}}\">{{#user}}Hi {{name}}{{/user}}{{^user}}Sign in{{/user}}</p>{{> footer}}{{/content}}{{/layout}}",
        "footer": "<footer>{{{title}}}</footer>",
    ]

    @Test func rendersWithLayoutPartialsAndEscaping() throws {
        let views = try ViewRenderer(templates: Self.templates)
        let context = LoginContext(title: "A&B", clientID: "\"><script>", user: .init(name: "<Jane>"))
        let html = try views.render("login", context).html
        #expect(html == "<html><title>A&amp;B</title><body><p data-client=\"&quot;&gt;&lt;script&gt;\">Hi &lt;Jane&gt;</p>"
            + "<footer>A&B</footer></body></html>")
        let anonymous = try views.render("login", LoginContext(title: "t", clientID: "c", user: nil)).html
        #expect(anonymous.contains(">Sign in</p>"))
    }

    /// A special character that a combining mark follows (U+0301), or a prepended mark precedes (U+0600), is one
    /// grapheme with it, and is escaped all the same: in the template, in a partial, and in a parent's block. Found
    /// by an audit: swift-mustache's escaping compares whole Characters, and let `"\u{301}>` end an attribute.
    @Test(arguments: ["\"\u{301}>\u{301}<img src=x onerror=alert(1)>\u{301}", "\u{600}<script>\u{600}&\u{301}'\u{301}"])
    func specialCharactersInAGraphemeAreEscaped(value: String) throws {
        let views = try ViewRenderer(templates: Self.templates.merging(["footer": "<footer>{{clientID}}</footer>"]) { $1 })
        let html = try views.render("login", LoginContext(title: value, clientID: value, user: .init(name: value))).html
        let markup = html.unicodeScalars.filter { "<>\"'".unicodeScalars.contains($0) }.count
        let template = try ViewRenderer(templates: Self.templates.merging(["footer": "<footer>{{clientID}}</footer>"]) { $1 })
            .render("login", LoginContext(title: "", clientID: "", user: .init(name: ""))).html
            .unicodeScalars.filter { "<>\"'".unicodeScalars.contains($0) }.count
        #expect(markup == template, "only the templates' own markup characters are left: \(html)")
        #expect(!html.contains("<img") && !html.contains("<script"))
    }

    @Test func missingTemplateIsNamed() throws {
        let views = try ViewRenderer(templates: Self.templates)
        #expect(throws: ViewError.templateNotFound("register")) { try views.render("register") }
        #expect(ViewError.templateNotFound("register").description == "No template named 'register'")
    }

    @Test func brokenTemplateIsNamedAtLoad() {
        #expect(throws: ViewError.self) { try ViewRenderer(templates: ["bad": "{{#open}}never closed"]) }
    }

    @Test func loadsEveryTemplateInADirectoryOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("views-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("partials"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "<h1>{{title}}</h1>{{> partials/nav}}".write(to: directory.appendingPathComponent("index.mustache"), atomically: true, encoding: .utf8)
        try "<nav></nav>".write(to: directory.appendingPathComponent("partials/nav.mustache"), atomically: true, encoding: .utf8)
        try "ignored".write(to: directory.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let views = try ViewRenderer(directory: directory.path)
        #expect(views.templateNames == ["index", "partials/nav"])
        try FileManager.default.removeItem(at: directory.appendingPathComponent("index.mustache"))
        #expect(try views.render("index", ["title": "Home"]).html == "<h1>Home</h1><nav></nav>")
        #expect(throws: ViewError.directoryNotFound("/nonexistent/views")) { try ViewRenderer(directory: "/nonexistent/views") }
    }

    @Test func requestViewRendersHTMLResponses() async throws {
        let app = Application.fixture()
        app.views = try ViewRenderer(templates: Self.templates)
        app.get("login") { req in try req.view.render("login", LoginContext(title: "Log in", clientID: "id", user: nil)) }
        let response = try await app.testing.send(.GET, "/login")
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.text.hasPrefix("<html><title>Log in</title>"))
    }

    /// The page's context is listed once (`ReflectedContext`) and read the way swift-mustache reads a struct: an
    /// optional is its value or nothing (a nil one leaves the name to the enclosing context), a struct in a section
    /// is that section's context, arrays repeat, booleans choose, dotted names reach in, and a name no property has
    /// renders empty.
    struct Shapes: Sendable {
        struct Item: Sendable { let name: String; let count: Int }
        let title: String
        let count: Int
        let flag: Bool
        let off: Bool
        let none: String?
        let some: String?
        let item: Item?
        let missingItem: Item?
        let items: [Item]
        let nested: String??
    }

    @Test func aContextIsReadAsSwiftMustacheReadsAStruct() throws {
        let views = try ViewRenderer(templates: ["page": "{{title}}|{{count}}|{{#flag}}on{{/flag}}{{^off}}not off{{/off}}|"
            + "[{{none}}]{{^none}}no none{{/none}}|{{some}}|{{#item}}{{name}}:{{count}}:{{title}}{{/item}}|"
            + "{{item.name}}|{{^missingItem}}no item{{/missingItem}}|{{#items}}{{name}}={{count}};{{/items}}|"
            + "{{nested}}|[{{nowhere}}]|{{#some}}{{.}}{{/some}}"])
        let context = Shapes(title: "T<", count: 3, flag: true, off: false, none: nil, some: "S", item: .init(name: "I", count: 7),
                             missingItem: nil, items: [.init(name: "a", count: 1), .init(name: "b", count: 2)],
                             nested: .some("N"))
        #expect(try views.render("page", context).html
            == "T&lt;|3|onnot off|[]no none|S|I:7:T&lt;|I|no item|a=1;b=2;|N|[]|S")
    }

    @Test func projectErrorTemplateRenders() throws {
        let views = try ViewRenderer(directory: Self.packageRoot + "/Resources/Views")
        let html = try views.render("error", ErrorPage(status: 404, title: "Not Found", reason: "<x>")).html
        #expect(html.contains("<h1>404 Not Found</h1>"))
        #expect(html.contains("<p>&lt;x&gt;</p>"))
    }

    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }
}
