/// Why a request was refused before it reached the responder; `status` is what the client gets.
package struct HTTPParseError: Error, Equatable, CustomStringConvertible {
    package enum Reason: String, Sendable, Equatable {
        case invalidRequestLine = "Invalid request line"
        case invalidMethod = "Invalid method"
        case invalidTarget = "Invalid request target"
        case invalidVersion = "Invalid HTTP version"
        case unsupportedVersion = "HTTP version not supported"
        case requestLineTooLong = "Request line too long"
        case headerSectionTooLarge = "Header section too large"
        case tooManyHeaders = "Too many header fields"
        case invalidHeaderName = "Invalid header field name"
        case invalidHeaderValue = "Invalid header field value"
        case whitespaceBeforeColon = "Whitespace before colon in header field"
        case obsoleteLineFolding = "Obsolete line folding is not allowed"
        case bareLineFeed = "Bare LF is not allowed"
        case bareCarriageReturn = "Bare CR is not allowed"
        case missingHost = "Missing Host header"
        case duplicateHost = "Duplicate Host header"
        case invalidHost = "Invalid Host header"
        case invalidContentLength = "Invalid Content-Length"
        case conflictingContentLength = "Conflicting Content-Length values"
        case contentLengthWithTransferEncoding = "Content-Length with Transfer-Encoding"
        case invalidTransferEncoding = "Invalid Transfer-Encoding"
        case unsupportedTransferEncoding = "Unsupported Transfer-Encoding"
        case invalidChunk = "Invalid chunked encoding"
        case chunkExtensionsTooLarge = "Chunk extensions too large"
        case bodyTooLarge = "Request body too large"
        case unsupportedExpectation = "Unsupported expectation"
        case timeout = "Request timeout"
    }

    package var reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    /// The response status for this error (RFC 9112 §3, §6; RFC 9110 §15.5).
    package var status: HTTPStatus {
        switch reason {
        case .requestLineTooLong: .uriTooLong
        case .headerSectionTooLarge, .tooManyHeaders: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .payloadTooLarge
        case .unsupportedTransferEncoding: .notImplemented
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedExpectation: .expectationFailed
        case .timeout: .requestTimeout
        default: .badRequest
        }
    }

    package var description: String { reason.rawValue }
}
