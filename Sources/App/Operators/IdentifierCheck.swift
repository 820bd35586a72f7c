import Foundation
import HTTPCore

/// The client ids and the redirect URL checked against Apple's rules, from the configuration alone: all of it in
/// `siwa doctor`, and the values Apple would refuse as warnings when `siwa serve` starts.
struct IdentifierCheck {
    let configuration: Configuration

    /// The path Apple must post the web flow's answer to: the server's callback route.
    static let callbackPath = "/login/siwa/callback"

    /// The values that are set but that Apple would refuse: ill-shaped ids, a Services ID that is also a bundle
    /// id, a redirect URL Apple does not accept. What is missing is left to `Configuration.problems`.
    func refusedValues() -> [DoctorFinding] {
        var findings = configuration.iosClientIDs.map { identifierFinding("IOS_APPLICATION_IDENTIFIER", $0, kind: "bundle id") }
        if let id = configuration.websiteClientID {
            findings.append(identifierFinding("WEBSITE_APPLICATION_IDENTIFIER", id, kind: "Services ID"))
            if configuration.iosClientIDs.contains(id) { findings.append(sharedIdentifierFinding(id)) }
        }
        if let url = configuration.redirectURL { findings.append(redirectFinding(url)) }
        return findings.filter { $0.verdict == .fail }
    }

    /// The client ids and the redirect URL: set together, shaped as Apple requires.
    func findings() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        if configuration.iosClientIDs.isEmpty {
            findings.append(DoctorFinding(verdict: .off, subject: "IOS_APPLICATION_IDENTIFIER",
                                          message: "not set: POST /api/users/siwa answers 503 (set the app's bundle id)"))
        } else {
            findings += configuration.iosClientIDs.map { identifierFinding("IOS_APPLICATION_IDENTIFIER", $0, kind: "bundle id") }
        }
        switch (configuration.websiteClientID, configuration.redirectURL) {
        case (nil, nil):
            findings.append(DoctorFinding(verdict: .off, subject: "WEBSITE_APPLICATION_IDENTIFIER", message:
                "not set (nor SIWA_REDIRECT_URL): the web sign-in routes answer 503 (set both for the web flow)"))
        case (let id?, nil):
            findings.append(identifierFinding("WEBSITE_APPLICATION_IDENTIFIER", id, kind: "Services ID"))
            findings.append(DoctorFinding(verdict: .fail, subject: "SIWA_REDIRECT_URL", message:
                "not set, so the web flow is off; set the return URL registered for \(id): https://<host>\(Self.callbackPath)"))
        case (nil, _?):
            findings.append(DoctorFinding(verdict: .fail, subject: "WEBSITE_APPLICATION_IDENTIFIER", message:
                "not set, so the web flow is off; set the Services ID whose return URL is SIWA_REDIRECT_URL"))
        case (let id?, let url?):
            findings.append(identifierFinding("WEBSITE_APPLICATION_IDENTIFIER", id, kind: "Services ID"))
            if configuration.iosClientIDs.contains(id) { findings.append(sharedIdentifierFinding(id)) }
            findings.append(redirectFinding(url))
        }
        if configuration.iosClientIDs.isEmpty && configuration.websiteClientID == nil {
            findings.append(DoctorFinding(verdict: .fail, subject: "routes", message:
                "no sign-in route is configured; set IOS_APPLICATION_IDENTIFIER and/or WEBSITE_APPLICATION_IDENTIFIER"))
        }
        return findings
    }

    private func sharedIdentifierFinding(_ id: String) -> DoctorFinding {
        DoctorFinding(verdict: .fail, subject: "WEBSITE_APPLICATION_IDENTIFIER", message:
            "\(id) is also a bundle id in IOS_APPLICATION_IDENTIFIER; the web flow needs a Services ID of its own")
    }

    /// Apple's rule for bundle ids and Services IDs: letters, digits, hyphens and periods, in reverse-DNS form.
    static func isWellFormedIdentifier(_ id: String) -> Bool {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { character in
                ("a"..."z").contains(character) || ("A"..."Z").contains(character) || ("0"..."9").contains(character)
                    || character == "-"
            }
        }
    }

    private func identifierFinding(_ name: String, _ id: String, kind: String) -> DoctorFinding {
        guard Self.isWellFormedIdentifier(id) else {
            return DoctorFinding(verdict: .fail, subject: name, message:
                "\(id) is not shaped like a \(kind): use reverse-DNS letters, digits, hyphens and periods, e.g. com.example.app")
        }
        return DoctorFinding(verdict: .ok, subject: name, message: "\(id) is shaped like a \(kind)")
    }

    /// HTTPS on a real host, or plain HTTP on loopback when `APPLE_BASE_URL` is a loopback stand-in.
    func redirectFinding(_ url: String) -> DoctorFinding {
        let https = "Apple only redirects to https URLs on a domain registered for the Services ID "
            + "(use https://<host>\(Self.callbackPath))"
        guard let parts = URLComponents(string: url), let host = parts.host, let scheme = parts.scheme?.lowercased() else {
            return DoctorFinding(verdict: .fail, subject: "SIWA_REDIRECT_URL", message: "\(url) is not an absolute URL; \(https)")
        }
        if parts.user != nil || parts.password != nil {
            var shown = parts
            (shown.user, shown.password) = (nil, nil)
            return DoctorFinding(verdict: .fail, subject: "SIWA_REDIRECT_URL", message: "\(shown.string ?? "it") with a user "
                + "name or password (not shown) is not a redirect URI Apple takes, and every login page would carry "
                + "it; \(https)")
        }
        if parts.fragment != nil {
            return DoctorFinding(verdict: .fail, subject: "SIWA_REDIRECT_URL", message:
                "\(url) has a fragment (#…), which a redirect URI must not have (RFC 6749 §3.1.2); \(https)")
        }
        let standIn = configuration.appleBaseURL.lowercased().hasPrefix("http://")
        if scheme == "http" && !(HTTPClient.isLoopback(host: host) && standIn) {
            let why = HTTPClient.isLoopback(host: host)
                ? "is loopback HTTP, which only the local stand-in accepts" : "is not HTTPS"
            return DoctorFinding(verdict: .fail, subject: "SIWA_REDIRECT_URL", message: "\(url) \(why); \(https)")
        }
        if scheme == "https" && !Self.isDomainName(host) {
            return DoctorFinding(verdict: .fail, subject: "SIWA_REDIRECT_URL", message:
                "\(url) names \(host), not a registered domain (Apple refuses IP addresses and localhost); \(https)")
        }
        guard parts.path == Self.callbackPath else {
            return DoctorFinding(verdict: .fail, subject: "SIWA_REDIRECT_URL", message:
                "\(url) has the path \(parts.path.isEmpty ? "/" : parts.path), but the server takes Apple's answer at "
                    + "\(Self.callbackPath); register and set "
                    + "\(scheme)://\(host)\(parts.port.map { ":\($0)" } ?? "")\(Self.callbackPath)")
        }
        let kind = scheme == "https"
            ? "HTTPS on \(host)" : "loopback HTTP, for the local stand-in at \(configuration.appleBaseURL)"
        return DoctorFinding(verdict: .ok, subject: "SIWA_REDIRECT_URL", message: "\(url) is \(kind)")
    }

    /// Whether `host` could be a domain registered at Apple: a dotted name, not localhost (nor `localhost.` or a
    /// name under it, which RFC 6761 §6.3 keeps for loopback; found by a review) or an IP address.
    static func isDomainName(_ host: String) -> Bool {
        let lowered = host.lowercased()
        let name = lowered.hasSuffix(".") ? String(lowered.dropLast()) : lowered
        guard !HTTPClient.isLoopback(host: host), name.contains("."), name != "localhost", !name.hasSuffix(".localhost")
        else { return false }
        return !host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" || $0 == "[" || $0 == "]" }
    }
}
