import Fluent
import Vapor

/// The TIL `User` (chapter 24 adds `siwaIdentifier`).
final class User: Model, Content, @unchecked Sendable {
    static let schema = "users"

    @ID var id: UUID?
    @Field(key: "name") var name: String
    @Field(key: "username") var username: String
    @Field(key: "password") var password: String
    @OptionalField(key: "siwaIdentifier") var siwaIdentifier: String?

    init() {}

    init(id: UUID? = nil, name: String, username: String, password: String, siwaIdentifier: String? = nil) {
        self.name = name
        self.username = username
        self.password = password
        self.siwaIdentifier = siwaIdentifier
    }

    struct Public: Content {
        let id: UUID?
        let name: String
        let username: String
    }

    func convertToPublic() -> Public {
        Public(id: id, name: name, username: username)
    }
}

/// The book's `ModelAuthenticatable` also checks passwords; the token authenticator needs only this.
extension User: Authenticatable {}

/// The TIL `Token`.
final class Token: Model, Content, @unchecked Sendable {
    static let schema = "tokens"

    @ID var id: UUID?
    @Field(key: "value") var value: String
    @Parent(key: "userID") var user: User

    init() {}

    init(id: UUID? = nil, value: String, userID: User.IDValue) {
        self.id = id
        self.value = value
        self.$user.id = userID
    }

    static func generate(for user: User) throws -> Token {
        let random = [UInt8].random(count: 16).base64
        return try Token(value: random, userID: user.requireID())
    }
}

extension Token: ModelTokenAuthenticatable {
    static var valueKey: KeyPath<Token, Field<String>> { \Token.$value }
    static var userKey: KeyPath<Token, Parent<User>> { \Token.$user }
    typealias User = VaporTIL.User

    var isValid: Bool { true }
}

/// The book's migrations, plus indexes on `siwaIdentifier` and `value` (the book has none) so the peer is not
/// slowed down by table scans.
struct CreateUser: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("users")
            .id()
            .field("name", .string, .required)
            .field("username", .string, .required)
            .field("password", .string, .required)
            .field("siwaIdentifier", .string)
            .unique(on: "username")
            .unique(on: "siwaIdentifier")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("users").delete()
    }
}

struct CreateToken: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("tokens")
            .id()
            .field("value", .string, .required)
            .field("userID", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .unique(on: "value")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("tokens").delete()
    }
}
