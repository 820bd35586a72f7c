import HTTPCore

/// Adds the usual protective headers to every response, error responses included, unless a route set them.
///
/// - `X-Content-Type-Options: nosniff`: no MIME sniffing of JSON or uploads into scripts.
/// - `Referrer-Policy: strict-origin-when-cross-origin`: other sites see only our origin, never a path or
///   query (where codes and state travel), and nothing over a downgrade to HTTP; our own pages keep full
///   referrers. `no-referrer` would break nothing here but buys little more; set it in `Configuration` if wanted.
/// - `Content-Security-Policy: frame-ancestors 'none'` and `X-Frame-Options: DENY`: no framing (clickjacking on
///   the login pages); the CSP has no `script-src`, so Apple's JS button keeps working.
/// - `Strict-Transport-Security` only when the request is secure (RFC 6797 §7.2: never over plain HTTP).
package struct SecurityHeadersMiddleware: Middleware {
    /// The header values; nil leaves a header out.
    package struct Configuration: Sendable {
        package var referrerPolicy: String?
        package var contentSecurityPolicy: String?
        package var frameOptions: String?
        package var contentTypeOptions: String?
        /// The HSTS value, e.g. `max-age=31536000`; nil to never send it.
        package var strictTransportSecurity: String?

        package init(referrerPolicy: String? = "strict-origin-when-cross-origin",
                    contentSecurityPolicy: String? = "frame-ancestors 'none'",
                    frameOptions: String? = "DENY", contentTypeOptions: String? = "nosniff",
                    strictTransportSecurity: String? = "max-age=31536000") {
            self.referrerPolicy = referrerPolicy
            self.contentSecurityPolicy = contentSecurityPolicy
            self.frameOptions = frameOptions
            self.contentTypeOptions = contentTypeOptions
            self.strictTransportSecurity = strictTransportSecurity
        }

        /// The headers these values make for a response to a request that was `secure` (HSTS only then). The
        /// server's own error answers carry them too (`HTTPServerConfiguration.errorHeaders`).
        package func headers(secure: Bool) -> HTTPHeaders {
            var headers: HTTPHeaders = [:]
            let values = [
                ("X-Content-Type-Options", contentTypeOptions), ("Referrer-Policy", referrerPolicy),
                ("Content-Security-Policy", contentSecurityPolicy), ("X-Frame-Options", frameOptions),
                ("Strict-Transport-Security", secure ? strictTransportSecurity : nil),
            ]
            for case let (name, value?) in values { headers.add(name: name, value: value) }
            return headers
        }
    }

    package let configuration: Configuration

    package init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        var response: Response
        do {
            response = try await next.respond(to: request)
        } catch {
            response = ErrorRenderer.response(for: error, request: request)
        }
        for (name, value) in configuration.headers(secure: request.isSecure) where !response.headers.contains(name) {
            response.headers.add(name: name, value: value)
        }
        return response
    }
}
