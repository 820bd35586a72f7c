/// An HTTP status code with its reason phrase (RFC 9110 §15).
package struct HTTPStatus: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    package let code: Int
    package let reasonPhrase: String

    package init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? Self.defaultReasonPhrase(for: code)
    }

    package init(integerLiteral value: Int) { self.init(code: value) }

    package static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
    package var description: String { "\(code) \(reasonPhrase)" }

    /// Whether a response with this status may carry content (RFC 9110 §6.4.1).
    package var mayHaveBody: Bool { !(100..<200).contains(code) && code != 204 && code != 304 }

    package static let `continue` = HTTPStatus(code: 100)
    package static let ok = HTTPStatus(code: 200)
    package static let created = HTTPStatus(code: 201)
    package static let accepted = HTTPStatus(code: 202)
    package static let noContent = HTTPStatus(code: 204)
    package static let movedPermanently = HTTPStatus(code: 301)
    package static let found = HTTPStatus(code: 302)
    package static let seeOther = HTTPStatus(code: 303)
    package static let notModified = HTTPStatus(code: 304)
    package static let temporaryRedirect = HTTPStatus(code: 307)
    package static let permanentRedirect = HTTPStatus(code: 308)
    package static let badRequest = HTTPStatus(code: 400)
    package static let unauthorized = HTTPStatus(code: 401)
    package static let forbidden = HTTPStatus(code: 403)
    package static let notFound = HTTPStatus(code: 404)
    package static let methodNotAllowed = HTTPStatus(code: 405)
    package static let requestTimeout = HTTPStatus(code: 408)
    package static let conflict = HTTPStatus(code: 409)
    package static let lengthRequired = HTTPStatus(code: 411)
    package static let payloadTooLarge = HTTPStatus(code: 413)
    package static let uriTooLong = HTTPStatus(code: 414)
    package static let unsupportedMediaType = HTTPStatus(code: 415)
    package static let expectationFailed = HTTPStatus(code: 417)
    package static let unprocessableContent = HTTPStatus(code: 422)
    package static let tooManyRequests = HTTPStatus(code: 429)
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    package static let internalServerError = HTTPStatus(code: 500)
    package static let notImplemented = HTTPStatus(code: 501)
    package static let badGateway = HTTPStatus(code: 502)
    package static let serviceUnavailable = HTTPStatus(code: 503)
    package static let gatewayTimeout = HTTPStatus(code: 504)
    package static let httpVersionNotSupported = HTTPStatus(code: 505)

    static func defaultReasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(code)"
        }
    }
}
