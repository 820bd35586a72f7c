import CryptoCore
import Web

/// The scripts a web-flow page may run, as its `Content-Security-Policy` says (CSP Level 3 §6.1.1 `script-src`,
/// §7.1 nonces): the page's own inline scripts, which carry this response's nonce; the server's static files; and
/// Apple's button script, from its origin. Anything injected into the page despite the templates' escaping cannot
/// run, nor can plugins (`object-src 'none'`) or a `<base>` that moves the relative script URLs (`base-uri 'none'`).
/// The pages keep `frame-ancestors 'none'`, as every other response.
///
/// The login, register and hand-off pages carry the state, the identity token and the authorization code, so they
/// are the ones that get it. A template of one's own (`RESOURCES_PATH`) gives its inline scripts
/// `nonce="{{scriptNonce}}"`, as the shipped ones give it to every script tag.
struct PageScripts: Sendable {
    /// Random bytes in each nonce: 128 bits, as CSP Level 3 §7.1 asks for.
    static let nonceByteCount = 16

    /// The nonce this response's inline scripts carry (base64url, which CSP's `base64-value` allows).
    let nonce: String
    /// The `Content-Security-Policy` value.
    let policy: String

    /// - Parameter appleScriptURL: where the page loads Apple's script from (`Configuration.appleScriptURL`).
    init(appleScriptURL: String) throws {
        nonce = Base64URL.encode(try SecureRandom.bytes(count: Self.nonceByteCount))
        let apple = Self.origin(of: appleScriptURL).map { " " + $0 } ?? ""
        policy = "frame-ancestors 'none'; script-src 'self' 'nonce-\(nonce)'\(apple); object-src 'none'; base-uri 'none'"
    }

    /// Sets the policy on a page's response, in place of the default one.
    func apply(to response: inout Response) {
        response.headers.replaceOrAdd(name: "Content-Security-Policy", value: policy)
    }

    /// `scheme://host[:port]` of an absolute URL, as a CSP host source; nil when it has none, when its host is an
    /// IPv6 literal (`[::1]`, which a host source cannot name: browsers drop it, found by a review), or when it holds
    /// a character a source expression cannot (a space, `;`, `,`, a quote), so the policy stays well formed. The
    /// page's own script tags also carry the nonce, so Apple's script loads without its origin listed.
    static func origin(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        guard !rest.hasPrefix("[") else { return nil }
        let hostEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? url.endIndex
        let origin = url[..<hostEnd]
        let fitsASource = origin.unicodeScalars.allSatisfy {
            $0.isASCII && $0.value > 0x20 && !";,'\"".unicodeScalars.contains($0)
        }
        guard hostEnd > rest.startIndex, fitsASource else { return nil }
        return String(origin)
    }
}
