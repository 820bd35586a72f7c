import JSON

/// Moving users with an app to another team (TN3159, Apple's "Transferring your apps and users to another team" and
/// "Bringing new apps and users into your team"): a team's access token for the `user.migration` scope, then
/// `POST /auth/usermigrationinfo` with it, to turn a `sub` into a transfer identifier (the sending team) or a
/// transfer identifier into this team's `sub` and e-mail (the receiving team).
extension AppleAuthClient {
    /// The scope of the access token the migration endpoint needs.
    package static let migrationScope = "user.migration"

    /// A team's access token for `/auth/usermigrationinfo`.
    package struct MigrationAccessToken: Sendable, Equatable {
        /// The token, sent as `Authorization: Bearer`; never logged.
        package var value: String
        /// Seconds it lives from when Apple issued it (`expires_in`); 0 when Apple did not say.
        package var expiresIn: Int
    }

    /// What the receiving team learns of a user from their transfer identifier.
    package struct MigratedUser: Sendable, Equatable {
        /// The user's `sub` in this team.
        package var sub: String
        /// The user's e-mail for this team (a new private relay address for one who hid theirs), when Apple gave one.
        package var email: String?
        /// Whether `email` is a private relay address, when Apple said.
        package var isPrivateEmail: Bool?
    }

    /// Asks `/auth/token` for an access token with `grant_type=client_credentials` and scope `user.migration`.
    /// - Parameter clientID: a client id (bundle id or Services ID) of this team's app.
    /// - Throws: `AppleAuthError`; `invalid_client` when Apple refuses the team id, key id or key.
    package func migrationAccessToken(clientID: String) async throws -> MigrationAccessToken {
        let form = [("grant_type", "client_credentials"), ("scope", Self.migrationScope), ("client_id", clientID),
                    ("client_secret", try clientSecret.secret(for: clientID))]
        let response = try await post(.token, form)
        guard let json = try? JSONValue(parsing: response.body), let token = json["access_token"]?.stringValue,
              !token.isEmpty
        else {
            calls.record(.token, .malformedResponse)
            throw AppleAuthError(.malformedResponse, detail: "/auth/token answer lacks access_token")
        }
        calls.record(.token, .ok)
        return MigrationAccessToken(value: token, expiresIn: Self.expiresIn(json["expires_in"]))
    }

    /// The sending team's call: the transfer identifier of the user `sub` for the team `target`.
    /// - Parameters:
    ///   - sub: the user's `sub` in this team.
    ///   - target: the receiving team's id.
    ///   - clientID: the client id the user signed in with.
    ///   - accessToken: from `migrationAccessToken(clientID:)`.
    package func transferIdentifier(sub: String, target: String, clientID: String, accessToken: String) async throws
        -> String
    {
        let form = [("sub", sub), ("target", target), ("client_id", clientID),
                    ("client_secret", try clientSecret.secret(for: clientID))]
        let json = try await migrationAnswer(form, accessToken: accessToken)
        guard let transferSub = json["transfer_sub"]?.storableString, !transferSub.isEmpty else {
            calls.record(.usermigrationinfo, .malformedResponse)
            throw AppleAuthError(.malformedResponse, detail: "/auth/usermigrationinfo answer lacks transfer_sub")
        }
        calls.record(.usermigrationinfo, .ok)
        return transferSub
    }

    /// The receiving team's call: this team's `sub`, e-mail and private-relay flag for a transfer identifier.
    package func exchangeTransfer(_ transferSub: String, clientID: String, accessToken: String) async throws
        -> MigratedUser
    {
        let form = [("transfer_sub", transferSub), ("client_id", clientID),
                    ("client_secret", try clientSecret.secret(for: clientID))]
        let json = try await migrationAnswer(form, accessToken: accessToken)
        guard let sub = json["sub"]?.storableString, !sub.isEmpty else {
            calls.record(.usermigrationinfo, .malformedResponse)
            throw AppleAuthError(.malformedResponse, detail: "/auth/usermigrationinfo answer lacks sub")
        }
        let email = json["email"]?.storableString.flatMap { $0.isEmpty ? nil : $0 }
        let isPrivate: Bool? = switch json["is_private_email"] {
        case .bool(let flag)?: flag
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
        calls.record(.usermigrationinfo, .ok)
        return MigratedUser(sub: sub, email: email, isPrivateEmail: isPrivate)
    }

    private func migrationAnswer(_ form: [(String, String)], accessToken: String) async throws -> JSONValue {
        let response = try await post(.usermigrationinfo, form, bearer: accessToken)
        guard let json = try? JSONValue(parsing: response.body) else {
            calls.record(.usermigrationinfo, .malformedResponse)
            throw AppleAuthError(.malformedResponse, detail: "/auth/usermigrationinfo answer is not JSON")
        }
        return json
    }
}
