import CryptoCore
import Foundation

/// The stand-in's side of an app transfer between two teams it knows (TN3159): each team's `user.migration` access
/// tokens, the transfer identifiers it gave the sending team, and, once the receiving team has exchanged one, which
/// team owns the app. From then on every identity token it issues is in the receiving team's scope (another `sub`,
/// another relay address) and, for 60 days, carries `transfer_sub` for the users the sender asked about.
///
/// Everything is derived, so the same (sub, team) always gives the same answers: `transferIdentifier(sub:target:)`,
/// `teamSubject(_:team:)`, `relayAddress(_:team:)`. The stand-in keeps what it gave out in memory only: keep it
/// running from the export to the import.
actor FakeAppleTransfers {
    /// How long after the transfer tokens carry `transfer_sub` (TN3159: sixty days).
    static let window: TimeInterval = 60 * 24 * 60 * 60
    /// `expires_in` of the migration access tokens, as Apple's: an hour.
    static let accessTokenLifetime = 3600

    /// A transfer identifier the sending team was given.
    struct Identifier: Sendable, Equatable {
        var sub: String
        var sender: String
        var target: String
    }

    private var accessTokens: [String: (team: String, expiresAt: Date)] = [:]
    private var identifiers: [String: Identifier] = [:]
    /// The e-mail each user of the original team shared, by `sub`, learned as tokens were issued.
    private var emails: [String: (email: String, isPrivate: Bool)] = [:]
    /// The team the app moved to, and when; nil while it is with its original team.
    private(set) var owner: (team: String, since: Date)?
    private(set) var clientCredentialsCalls = 0
    private(set) var migrationCalls = 0
    private(set) var throttledCalls = 0
    private var throttleLeft = 0
    private var throttleRetryAfter = 1
    /// How many calls `/auth/usermigrationinfo` answers before it answers `invalid_client` to every one (the access
    /// token endpoint not); nil: never.
    private var refusesCredentialsAfter: Int?

    /// Users for whom `/auth/usermigrationinfo` answers `invalid_request` to the sending team, as Apple does for
    /// some users who revoked access before the transfer (a test's knob).
    private(set) var refusedSubs: Set<String> = []

    func refuseTransferIdentifier(forSub sub: String) { refusedSubs.insert(sub) }

    /// Whether `/auth/usermigrationinfo` now answers `invalid_client` whatever the client secret.
    var refusesMigrationCredentials: Bool { refusesCredentialsAfter.map { migrationCalls >= $0 } ?? false }

    /// Makes `/auth/usermigrationinfo` answer `invalid_client` (or not) whatever the client secret, once it has
    /// answered `calls` more calls.
    func refuseMigrationCredentials(_ refuse: Bool, after calls: Int = 0) {
        refusesCredentialsAfter = refuse ? migrationCalls + calls : nil
    }

    /// The next `count` calls to `/auth/usermigrationinfo` answer 429 with `Retry-After: retryAfter`.
    func throttle(next count: Int, retryAfter: Int) {
        throttleLeft = max(count, 0)
        throttleRetryAfter = retryAfter
    }

    /// Whether this call is to be throttled, and for how long.
    func takeThrottle() -> Int? {
        guard throttleLeft > 0 else { return nil }
        throttleLeft -= 1
        throttledCalls += 1
        return throttleRetryAfter
    }

    /// A new access token for `team`.
    func issueAccessToken(team: String, now: Date) throws -> String {
        clientCredentialsCalls += 1
        let token = "m" + Base64URL.encode(try SecureRandom.bytes(count: 24))
        accessTokens[token] = (team, now.addingTimeInterval(TimeInterval(Self.accessTokenLifetime)))
        return token
    }

    /// The team a live access token was issued to.
    func team(ofAccessToken token: String, now: Date) -> String? {
        guard let entry = accessTokens[token], entry.expiresAt > now else { return nil }
        return entry.team
    }

    func countMigrationCall() { migrationCalls += 1 }

    /// The sending team's call: the identifier of `sub` for `target`, or nil when `target` is no other team's id.
    func generate(sub: String, sender: String, target: String) -> String? {
        guard Self.isTeamID(target), target != sender, !refusedSubs.contains(sub) else { return nil }
        let identifier = Self.transferIdentifier(sub: sub, target: target)
        identifiers[identifier] = Identifier(sub: sub, sender: sender, target: target)
        return identifier
    }

    /// The receiving team's call: the user's `sub`, e-mail and private flag in `team`, or nil when the identifier was
    /// not given for `team`. The first such call completes the transfer: the app is `team`'s from then on.
    func exchange(_ transferSub: String, team: String, now: Date)
        -> (sub: String, email: String, isPrivateEmail: Bool)?
    {
        guard let identifier = identifiers[transferSub], identifier.target == team else { return nil }
        completeTransfer(to: team, now: now)
        let sub = Self.teamSubject(identifier.sub, team: team)
        guard let shared = emails[identifier.sub] else {
            return (sub, Self.relayAddress(identifier.sub, team: team), true)
        }
        return (sub, shared.isPrivate ? Self.relayAddress(shared.email, team: team) : shared.email, shared.isPrivate)
    }

    /// The app belongs to `team` from `now` (App Store Connect's transfer completed).
    func completeTransfer(to team: String, now: Date) {
        if owner?.team != team { owner = (team, now) }
    }

    /// `grant` (in the original team's terms) as the team that owns the app now sees it.
    func scoped(_ grant: FakeAppleState.Grant, now: Date) -> FakeAppleState.Grant {
        guard let owner else {
            emails[grant.subject] = (grant.email, grant.isPrivateEmail)
            return grant
        }
        var scoped = grant
        scoped.subject = Self.teamSubject(grant.subject, team: owner.team)
        if grant.isPrivateEmail { scoped.email = Self.relayAddress(grant.email, team: owner.team) }
        let identifier = Self.transferIdentifier(sub: grant.subject, target: owner.team)
        if now.timeIntervalSince(owner.since) < Self.window, identifiers[identifier] != nil {
            scoped.transferSub = identifier
        }
        return scoped
    }

    /// Whether `text` is shaped like a team id: 10 capital letters or digits.
    static func isTeamID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// The transfer identifier of `sub` for `target`: the same every time, and not revealing `sub`.
    package static func transferIdentifier(sub: String, target: String) -> String {
        let digest = SHA256.hex(SHA256.hash("transfer\n\(target)\n\(sub)"))
        return "\(digest.prefix(6)).\(digest.dropFirst(6).prefix(32)).t\(digest.suffix(3))"
    }

    /// The `sub` that `team` knows the user by whom the original team knows as `sub`.
    package static func teamSubject(_ sub: String, team: String) -> String {
        let digest = SHA256.hex(SHA256.hash("team\n\(team)\n\(sub)"))
        return "002\(digest.prefix(3)).\(digest.dropFirst(3).prefix(32)).0\(digest.suffix(3))"
    }

    /// The private relay address `team` gets for the user behind `seed` (their e-mail, or their `sub`).
    package static func relayAddress(_ seed: String, team: String) -> String {
        let digest = SHA256.hex(SHA256.hash("relay\n\(team)\n\(seed.lowercased())"))
        return "\(digest.prefix(10))@\(FakeAppleKeys.relayDomain)"
    }
}
