import TestSupport
import Foundation
import Testing
@testable import HTTPCore

/// Runs llhttp's strict request cases through our parser.
///
/// Deliberate differences, each following RFC 9112 / RFC 9110 where llhttp is a general-purpose parser:
/// - A 1.1 request without `Host` is refused (RFC 9112 §3.2 MUST 400); llhttp does not check `Host`, so such
///   accepted cases are checked with a `Host` field added.
/// - Any token is a method (RFC 9110 §9.1); llhttp knows a fixed list (and RTSP/ICE), so it rejects unknown ones.
/// - HTTP/0.9 request lines, RTSP/ICE versions, `*` targets for methods other than OPTIONS, and targets with
///   `#` (a fragment is never sent, RFC 9112 §3.2.1) or `\` (not a URI character) are refused.
/// - CONNECT / Upgrade / PRI make llhttp pause (code 22/23); we parse the head like any other request.
/// - `Data after Connection: close` (code 5): the parser reads the next request; the server itself stops
///   reading after answering a `Connection: close` request, which is the same outcome on the wire.
/// - `Transfer-Encoding` other than a final `chunked`: llhttp (strict) takes a request body as unframed;
///   we answer 501 (unknown coding) or 400 (chunked not last), as RFC 9112 §6.3 rule 4 asks.
@Suite(.vectors("llhttp/request"))
struct LLHTTPVectorTests {
    static let cases: [LLHTTPCase] = {
        guard let folder = TestVectors.folder("llhttp/request", report: false) else { return [] }
        return (try? LLHTTPCase.load(from: folder)) ?? []
    }()

    static let tolerated: Set<Int> = [5, 22, 23]

    @Test func vectorsWereFound() {
        guard TestVectors.folder("llhttp/request") != nil else { return }
        #expect(Self.cases.count > 100)
    }

    @Test(arguments: cases)
    func strictCase(_ vector: LLHTTPCase) throws {
        let limits = HTTPLimits()
        let result = HTTPRequestParser.parseAll(vector.input, limits: limits)
        if vector.accepted {
            var requests: [HTTPRequest]
            switch result {
            case .success(let parsed):
                requests = parsed
            case .failure(let error) where error.reason == .unsupportedTransferEncoding:
                return
            case .failure(let error) where error.reason == .missingHost:
                let retried = HTTPRequestParser.parseAll(Self.withHost(vector.input))
                if case .failure(let again) = retried, again.reason == .unsupportedTransferEncoding { return }
                requests = try #require(try? retried.get(), "\(vector): \(error)")
                for index in requests.indices {
                    var headers = requests[index].headers
                    headers.remove(name: "host")
                    requests[index].headers = headers
                }
            case .failure(let error):
                #expect(Self.isNotHTTP11Form(vector.input), "\(vector) was refused: \(error)")
                return
            }
            let expected = vector.messages
            try #require(requests.count >= expected.count, "\(vector)")
            for (request, message) in zip(requests, expected) {
                #expect(request.method.rawValue == message.method, "\(vector)")
                #expect(request.target == message.url, "\(vector)")
                let fields = Array(request.headers) + Array(request.trailers)
                let headers = fields.map { Self.ascii("\($0.name.lowercased()): \($0.value)") }
                let expected = message.headers.map(Self.ascii)
                #expect(headers == expected.filter { !$0.hasPrefix("host:") || headers.contains($0) }, "\(vector)")
                #expect(request.body == message.body, "\(vector)")
            }
        } else if let code = vector.errorCode, !Self.tolerated.contains(code) {
            if case .success(let requests) = result, requests.count >= max(1, vector.messages.count) {
                let reason = vector.outcome
                let methodOnly = reason.contains("method") || reason.contains("HTTP/, RTSP/")
                #expect(methodOnly, "\(vector) was accepted; llhttp: \(reason)")
            }
        }
    }

    /// Non-ASCII characters as `?`: header values are Strings, so obs-text bytes come back as U+FFFD.
    static func ascii(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.isASCII ? Character($0) : "?" })
    }

    /// Request lines that are not HTTP/1.x in origin/absolute form: RTSP, ICE, HTTP/0.9, `*` for a method
    /// other than OPTIONS (RFC 9112 §3.2.4), an absolute form carrying userinfo (RFC 9110 §4.2.4). We refuse these
    /// on purpose; llhttp understands them.
    static func isNotHTTP11Form(_ input: [UInt8]) -> Bool {
        let line = String(decoding: input.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return true }
        let authority = parts[1].contains("://") ? parts[1].split(separator: "/", omittingEmptySubsequences: false)
            .dropFirst(2).first ?? "" : ""
        return (parts[1] == "*" && parts[0] != "OPTIONS") || parts[1].contains("#") || parts[1].contains("\\")
            || authority.contains("@")
    }

    /// Inserts `Host: x` after every request line of a 1.1 message that lacks one.
    static func withHost(_ input: [UInt8]) -> [UInt8] {
        let text = String(decoding: input, as: UTF8.self)
        var out = ""
        for (index, line) in text.components(separatedBy: "\r\n").enumerated() {
            if index > 0 { out += "\r\n" }
            out += line
            if line.hasSuffix(" HTTP/1.1") { out += "\r\nHost: x" }
        }
        return Array(out.utf8)
    }
}
