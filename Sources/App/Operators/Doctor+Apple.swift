import AppleID
import Foundation
import HTTPCore
import JOSE
import JSON

extension Doctor {
    /// The `.p8` and the ids beside it; the client secret to probe Apple with when the key loads.
    func appleKeyFindings() -> (findings: [DoctorFinding], clientSecret: ClientSecret?) {
        guard let key = configuration.appleKey else {
            return ([DoctorFinding(verdict: .off, subject: "APPLE_PRIVATE_KEY_PATH", message:
                "not set (nor APPLE_TEAM_ID, APPLE_KEY_ID): authorization-code exchange and token revocation are off")], nil)
        }
        var findings: [DoctorFinding] = []
        for (name, value) in [("APPLE_TEAM_ID", key.teamID), ("APPLE_KEY_ID", key.keyID)] {
            let shaped = value.count == 10
                && value.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
            findings.append(shaped
                ? DoctorFinding(verdict: .ok, subject: name, message: "\(value) is 10 capital letters and digits")
                : DoctorFinding(verdict: .fail, subject: name, message:
                    "\(value) is not 10 capital letters and digits; copy it from Certificates, Identifiers & Profiles"))
        }
        do {
            let secret = try ClientSecret.load(teamID: key.teamID, keyID: key.keyID, privateKeyPath: key.privateKeyPath)
            findings.append(DoctorFinding(verdict: .ok, subject: "APPLE_PRIVATE_KEY_PATH",
                                          message: "\(key.privateKeyPath) is an EC P-256 key"))
            return (findings, secret)
        } catch let error as ClientSecretError {
            let text = "\(error)".replacingOccurrences(of: "APPLE_PRIVATE_KEY_PATH: ", with: "")
            let fix = if case .keyFileNotReadable = error {
                "give the user siwa runs as read access to it (chmod 0400, owned by that user)"
            } else {
                "download the key with Sign in with Apple enabled and point APPLE_PRIVATE_KEY_PATH at it"
            }
            findings.append(DoctorFinding(verdict: .fail, subject: "APPLE_PRIVATE_KEY_PATH",
                                          message: "\(text); \(fix)"))
        } catch {
            findings.append(DoctorFinding(verdict: .fail, subject: "APPLE_PRIVATE_KEY_PATH", message: "\(error)"))
        }
        return (findings, nil)
    }

    /// Apple's signing keys can be fetched now from `APPLE_BASE_URL/auth/keys`.
    func appleKeysFinding() async -> DoctorFinding {
        let url = configuration.appleBaseURL + "/auth/keys"
        let fix = "check the network, DNS, firewall and proxy, and that APPLE_BASE_URL is https://appleid.apple.com "
            + "(or the stand-in's address)"
        do {
            let response = try await http.send(HTTPClientRequest(method: .GET, url: url))
            guard response.status.code == 200 else {
                return DoctorFinding(verdict: .fail, subject: "APPLE_BASE_URL",
                                     message: "\(url) answered \(response.status.code); \(fix)")
            }
            let keys = FixedSigningKeys(try JWKSet(json: response.body)).keys
            guard !keys.isEmpty else {
                return DoctorFinding(verdict: .fail, subject: "APPLE_BASE_URL", message: "\(url) holds no RSA key; \(fix)")
            }
            return DoctorFinding(verdict: .ok, subject: "APPLE_BASE_URL", message: "\(url) answers with \(keys.count) key(s)")
        } catch {
            return DoctorFinding(verdict: .fail, subject: "APPLE_BASE_URL", message: "cannot fetch \(url) (\(error)); \(fix)")
        }
    }

    /// For each client id, a real client secret and a dummy code sent to `/auth/token`: `invalid_grant` proves
    /// Apple accepted the team id, key id and key for that client; `invalid_client` that it did not.
    func clientSecretFindings(_ secret: ClientSecret) async -> [DoctorFinding] {
        let client = AppleAuthClient(baseURL: configuration.appleBaseURL, clientSecret: secret, http: http)
        var clients = configuration.iosClientIDs.map { ($0, nil as String?) }
        if let web = configuration.websiteClientID { clients.append((web, configuration.redirectURL)) }
        var findings: [DoctorFinding] = []
        for (clientID, redirectURI) in clients {
            findings.append(await probe(client, clientID: clientID, redirectURI: redirectURI))
        }
        return findings
    }

    private func probe(_ client: AppleAuthClient, clientID: String, redirectURI: String?) async
        -> DoctorFinding
    {
        let subject = "client secret for \(clientID)"
        let teamID = configuration.appleKey?.teamID ?? "", keyID = configuration.appleKey?.keyID ?? ""
        let ids = "APPLE_TEAM_ID \(teamID), APPLE_KEY_ID \(keyID)"
        do {
            _ = try await client.exchange(code: Self.probeCode, clientID: clientID, redirectURI: redirectURI)
            return DoctorFinding(verdict: .ok, subject: subject, message: "Apple accepted it (\(ids))")
        } catch let error as AppleAuthError {
            switch error.kind {
            case .apple("invalid_grant"):
                return DoctorFinding(verdict: .ok, subject: subject, message:
                    "Apple accepted it (\(ids)): /auth/token answered invalid_grant to a dummy code, as it should")
            case .apple("invalid_client"):
                return DoctorFinding(verdict: .fail, subject: subject, message:
                    "Apple answered invalid_client: it refused the client secret for \(clientID). Likely: "
                        + "APPLE_KEY_ID (\(keyID)) is not the id of the key in "
                        + "\(configuration.appleKey?.privateKeyPath ?? "APPLE_PRIVATE_KEY_PATH"), APPLE_TEAM_ID "
                        + "(\(teamID)) is not that key's team, the key was revoked or lacks Sign in with Apple, "
                        + "or \(clientID) is not an App ID or Services ID of that team with Sign in with Apple enabled"
                        + (redirectURI.map { ", or \($0) (SIWA_REDIRECT_URL) is not one of its Return URLs" } ?? ""))
            case .unreachable:
                return DoctorFinding(verdict: .fail, subject: subject, message:
                    "cannot reach \(configuration.appleBaseURL)/auth/token (\(error.detail)); "
                        + "check the network and APPLE_BASE_URL")
            default:
                return DoctorFinding(verdict: .fail, subject: subject, message: "\(error.likelyCause) (\(ids))")
            }
        } catch {
            return DoctorFinding(verdict: .fail, subject: subject, message: "could not mint or send it: \(error)")
        }
    }
}
