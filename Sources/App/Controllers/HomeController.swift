import Foundation
import Web

/// `GET /`: who is signed in, or the way to sign in. `GET /health` for load balancers.
struct HomeController: RouteCollection {
    let accounts: AccountService

    func boot(routes: any RoutesBuilder) throws {
        routes.get(use: index)
    }

    struct IndexContext: Sendable {
        var currentUser: CurrentUserContext?
    }

    /// The page depends on the session and shows the user's e-mail: no cache keeps it (RFC 9111 §5.2.2.5).
    @Sendable func index(_ req: Request) async throws -> Response {
        var context = IndexContext(currentUser: nil)
        if let user = try await accounts.user(inSession: req.sessionUserID) {
            context.currentUser = CurrentUserContext(user, csrfToken: try AccountController.csrfToken(for: req))
        }
        var response = try req.view.render("index", context).encodeResponse(for: req)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return response
    }
}

/// `GET /health` → `{"status":"ok"}`.
struct HealthController: RouteCollection {
    struct Health: Content { var status: String }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("health") { _ in Health(status: "ok") }
    }
}

/// The signed-in user as the templates see them.
struct CurrentUserContext: Sendable {
    var id, displayName, email, memberSince, csrfToken: String
    var isPrivateEmail, canDelete: Bool

    init(_ user: User, csrfToken: String = "") {
        id = user.id.uuidString
        displayName = user.name.isEmpty ? (user.email.isEmpty ? "Apple user" : user.email) : user.name
        email = user.email
        isPrivateEmail = user.isPrivateEmail
        memberSince = user.createdAt.formatted(Self.dateFormat)
        canDelete = !csrfToken.isEmpty
        self.csrfToken = csrfToken
    }

    private static let dateFormat = Date.FormatStyle(
        date: .long, time: .omitted, locale: Locale(identifier: "en_US"), timeZone: TimeZone(identifier: "UTC") ?? .current
    )
}

/// A person's name as Apple gives it (first and last) and as the API takes it (one string).
struct PersonName: Sendable, Equatable {
    var fullName: String

    init(fullName: String) {
        self.fullName = Self.trimmedASCII(fullName) ?? fullName.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `text` without leading and trailing tabs, line breaks (LF, VT, FF, CR) and spaces when it is all ASCII:
    /// what `trimmingCharacters(in: .whitespacesAndNewlines)` gives for ASCII, without Foundation's character
    /// set walk, which showed in the sign-in profile; nil for any other text.
    static func trimmedASCII(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
            var start = 0
            var end = bytes.count
            while start < end, isBlank(bytes[start]) { start += 1 }
            while end > start, isBlank(bytes[end - 1]) { end -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }

    init(firstName: String, lastName: String) {
        self.init(fullName: [firstName, lastName].map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " "))
    }

    /// Longest name stored, in Unicode code points (what JSON Schema's `maxLength` counts; at most 800 UTF-8
    /// bytes); longer input is cut at a character's end, not refused.
    static let maximumLength = 200

    /// The name as stored: without control characters (C0, C1, DEL) or the bidirectional formatting characters
    /// (`isBidiControl`: marks, embeddings, overrides, isolates, which make a name read otherwise than it is
    /// written, CVE-2021-42574, on the pages and in the operators' terminals), cut to `maximumLength` code points at
    /// a character's end. Found by audits: one character of 250,000 combining marks passed a count of characters,
    /// and `/me` then answered half a megabyte; 200 characters of two code points each broke the API document's
    /// `maxLength`; `\u{202E}nimda` showed as "admin".
    var stored: String {
        // Printable ASCII within the limit, nearly every name, is stored as it is, without the Unicode walk below.
        if fullName.utf8.count <= Self.maximumLength, fullName.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return fullName
        }
        let hidden = { (scalar: Unicode.Scalar) in
            scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
        }
        let printable = fullName.unicodeScalars.contains(where: hidden)
            ? String(String.UnicodeScalarView(fullName.unicodeScalars.filter { !hidden($0) }))
            : fullName
        var end = printable.startIndex
        var scalars = 0
        while end < printable.endIndex {
            let next = printable.index(after: end)
            scalars += printable.unicodeScalars.distance(from: end, to: next)
            guard scalars <= Self.maximumLength else { break }
            end = next
        }
        return String(printable[..<end])
    }
}
