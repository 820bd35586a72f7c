/// A parsed request head: the request without its body, plus the framing decided from its fields.
struct HTTPRequestHead {
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    var request: HTTPRequest
    var framing: Framing
    /// Whether the connection may carry another request after this one (RFC 9112 §9.3).
    var keepAlive: Bool
    /// `Expect: 100-continue` was sent (RFC 9110 §10.1.1).
    var expectsContinue: Bool
}
