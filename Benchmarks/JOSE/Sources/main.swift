import AppleID
import CryptoCore
import Foundation
import JOSE
import JSON

/// Identity-token verifications per second on the calling thread: parse + RS256 verify + claims,
/// through the public `IdentityTokenVerifier` with an in-memory key provider. Run it pinned to
/// one core (`Benchmarks/JOSE/run` uses `taskset -c 0`).
/// Everything runs in this nonisolated function: closures formed here are not main-actor
/// isolated, so the measured calls never hop between executors (as on the server's request path).
/// User CPU time of this process so far (getrusage(2)); only the measuring thread is busy.
func userCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
}

enum Benchmark {
    static func run() async throws {
        let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 3

        let key = try RSAPrivateKey.generate(bits: 2048)  // before any timing starts
        let now = Date()
        let t = now.timeIntervalSince1970.rounded(.down)  // Apple NumericDates are whole seconds
        let claims: JSONValue = [
            "iss": "https://appleid.apple.com", "aud": "com.example.til", "exp": .number(t + 600), "iat": .number(t),
            "sub": "001234.0123456789abcdef0123456789abcdef.1234", "c_hash": "Q4ZmZ0Ls6Dc2ImVh4gY1Ng",
            "email": "jane@privaterelay.appleid.com", "email_verified": "true", "is_private_email": "true",
            "auth_time": .number(t), "nonce_supported": true, "real_user_status": 2,
            "nonce": .string(SHA256.hexHash("raw-nonce")),
        ]
        let token = try JWTSigner.sign(claims: claims, keyID: "W6WcOKB", key: .rs256(key))
        let verifier = IdentityTokenVerifier(
            keys: FixedSigningKeys(["W6WcOKB": try key.publicKey]), clientIDs: ["com.example.til"], clock: { now })

        /// Rates are per second of user CPU time, as `openssl speed` reports them by default
        /// (speed.c measures user time unless given `-elapsed`), so both sides are comparable
        /// on a machine shared with other work.
        func measure(_ label: String, _ body: () async throws -> Void) async throws -> Double {
            for _ in 0..<200 { try await body() }
            let wallStart = ContinuousClock.now
            let cpuStart = userCPUSeconds()
            var count = 0
            while true {
                for _ in 0..<100 { try await body() }
                count += 100
                let wall = ContinuousClock.now - wallStart
                let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
                if wallSeconds >= seconds {
                    let cpu = userCPUSeconds() - cpuStart
                    let rate = Double(count) / cpu
                    print("\(label): \(String(format: "%.0f", rate))/s (\(count) in \(String(format: "%.2f", cpu)) s user CPU, \(String(format: "%.2f", wallSeconds)) s wall)")
                    return rate
                }
            }
        }

        let publicKey = try key.publicKey
        let jws = try JWS(compact: token)
        let mode = CommandLine.arguments.dropFirst(2).first
        let iterations = CommandLine.arguments.dropFirst(3).first.flatMap(Int.init) ?? 0
        if mode == "--iterations" {
            for _ in 0..<iterations { _ = try await verifier.verify(token, nonce: "raw-nonce") }
            return
        }
        if mode == "--raw-iterations" {
            let publicKey = try key.publicKey, jws = try JWS(compact: token)
            for _ in 0..<iterations { precondition(publicKey.isValidSignature(jws.signature, for: jws.signingInput)) }
            return
        }
        let onlyToken = mode == "--only-token"
        if !onlyToken {
        _ = try await measure("raw RS256 verify (RSAPublicKey.isValidSignature)") {
            precondition(publicKey.isValidSignature(jws.signature, for: jws.signingInput))
        }
        _ = try await measure("parse only (JWS + header)") { _ = try JWS(compact: token) }
        _ = try await measure("claims JSON only") { _ = try JSONValue(parsing: jws.payload) }
        _ = try await measure("SHA-256 of signing input") { _ = SHA256.hash(jws.signingInput) }
        _ = try await measure("SHA-256 hex of a nonce") { _ = SHA256.hexBytes(SHA256.hash("raw-nonce")) }
        _ = try await measure("verifyJWT (no Apple claims, no nonce)") { _ = try await verifier.verifyJWT(token) }
        _ = try await measure("verify without nonce") { _ = try await verifier.verify(token, expecting: nil) }
        }
        let rate = try await measure("identity token verify (parse + RS256 + claims)") {
            _ = try await verifier.verify(token, nonce: "raw-nonce")
        }
        print("RESULT identity_token_verifications_per_second \(String(format: "%.0f", rate))")
    }
}

try await Benchmark.run()
