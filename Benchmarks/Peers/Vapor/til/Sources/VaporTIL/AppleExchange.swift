import Fluent
import JWT
import Vapor

/// The authorization-code exchange the Vapor way: `req.client` (AsyncHTTPClient's pool) posts the code to
/// `APPLE_BASE_URL/auth/token` with a client secret signed by jwt-kit and cached, the `id_token` Apple answers with
/// is verified with `req.jwt.apple`, and Fluent stores the refresh token (`AppleToken`).
struct AppleExchange: Sendable {
    let tokenURL: URI
    let applicationIdentifier: String
    let clientSecret: AppleClientSecret

    /// From APPLE_BASE_URL, APPLE_TEAM_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_PATH (an ES256 `.p8`); nil without them.
    static func configure(_ app: Application, applicationIdentifier: String) async throws -> AppleExchange? {
        guard let teamID = Environment.get("APPLE_TEAM_ID"), let keyID = Environment.get("APPLE_KEY_ID"),
              let path = Environment.get("APPLE_PRIVATE_KEY_PATH")
        else { return nil }
        let base = Environment.get("APPLE_BASE_URL") ?? "https://appleid.apple.com"
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        await app.jwt.keys.add(ecdsa: try ES256PrivateKey(pem: pem), kid: JWKIdentifier(string: keyID))
        return AppleExchange(
            tokenURL: URI(string: base + "/auth/token"), applicationIdentifier: applicationIdentifier,
            clientSecret: AppleClientSecret(keys: app.jwt.keys, teamID: teamID, keyID: keyID,
                                            clientID: applicationIdentifier)
        )
    }

    struct TokenRequest: Content {
        let client_id: String
        let client_secret: String
        let code: String
        let grant_type: String
    }

    struct TokenResponse: Content {
        let access_token: String
        let refresh_token: String
        let id_token: String
    }

    /// Exchanges `code`; Apple's `id_token` must name `subject`. Returns the refresh token.
    func exchange(_ code: String, subject: String, on req: Request) async throws -> String {
        let secret = try await clientSecret.value()
        let response = try await req.client.post(tokenURL) { outgoing in
            try outgoing.content.encode(TokenRequest(client_id: applicationIdentifier, client_secret: secret,
                                                     code: code, grant_type: "authorization_code"),
                                        as: .urlEncodedForm)
        }
        guard response.status == .ok else {
            throw Abort(response.status == .badRequest ? .badRequest : .badGateway,
                        reason: "Apple answered \(response.status.code) to the code exchange")
        }
        let tokens = try response.content.decode(TokenResponse.self)
        let identity = try await req.jwt.apple.verify(tokens.id_token, applicationIdentifier: applicationIdentifier)
        guard identity.subject.value == subject else { throw Abort(.unauthorized) }
        return tokens.refresh_token
    }
}

/// Apple's client secret: an ES256 JWT (`iss` team id, `sub` client id, `aud` https://appleid.apple.com, `kid` the
/// key id) signed once and reused until an hour before it expires (a day after it was made).
actor AppleClientSecret {
    let keys: JWTKeyCollection
    let teamID: String
    let keyID: String
    let clientID: String
    private var cached: (value: String, expires: Date)?

    static let lifetime: TimeInterval = 86_400

    init(keys: JWTKeyCollection, teamID: String, keyID: String, clientID: String) {
        self.keys = keys
        self.teamID = teamID
        self.keyID = keyID
        self.clientID = clientID
    }

    struct Payload: JWTPayload {
        let iss: IssuerClaim
        let iat: IssuedAtClaim
        let exp: ExpirationClaim
        let aud: AudienceClaim
        let sub: SubjectClaim

        func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    func value() async throws -> String {
        if let cached, cached.expires.timeIntervalSinceNow > 3600 { return cached.value }
        let now = Date()
        let expires = now.addingTimeInterval(Self.lifetime)
        let payload = Payload(iss: .init(value: teamID), iat: .init(value: now), exp: .init(value: expires),
                              aud: .init(value: ["https://appleid.apple.com"]), sub: .init(value: clientID))
        let value = try await keys.sign(payload, kid: JWKIdentifier(string: keyID))
        cached = (value, expires)
        return value
    }
}

/// Apple's refresh token for a user, kept to revoke it when the account is deleted.
final class AppleToken: Model, @unchecked Sendable {
    static let schema = "apple_tokens"

    @ID var id: UUID?
    @Field(key: "refreshToken") var refreshToken: String
    @Parent(key: "userID") var user: User

    init() {}

    init(id: UUID? = nil, refreshToken: String, userID: User.IDValue) {
        self.id = id
        self.refreshToken = refreshToken
        self.$user.id = userID
    }
}

struct CreateAppleToken: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("apple_tokens")
            .id()
            .field("refreshToken", .string, .required)
            .field("userID", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("apple_tokens").delete()
    }
}
