@testable import HTTPCore

extension HTTPRequestParser {
    /// Feeds `bytes` in pieces of at most `step` bytes and collects every complete request, or the first error.
    static func parseAll(_ bytes: [UInt8], limits: HTTPLimits = .init(), step: Int = .max)
        -> Result<[HTTPRequest], HTTPParseError> {
        var parser = HTTPRequestParser(limits: limits)
        let buffer = ReadBuffer(capacity: 64)
        var requests: [HTTPRequest] = []
        var offset = 0
        repeat {
            let end = min(bytes.count, offset + max(1, min(step, bytes.count - offset)))
            bytes[offset..<end].withUnsafeBytes { buffer.append($0) }
            offset = end
            do {
                loop: while true {
                    switch try parser.next(buffer) {
                    case .needMore: break loop
                    case .head: continue
                    case .request(let head): requests.append(head.request)
                    }
                }
            } catch {
                return .failure(error)
            }
        } while offset < bytes.count
        return .success(requests)
    }

    static func parseAll(_ text: String, limits: HTTPLimits = .init(), step: Int = .max)
        -> Result<[HTTPRequest], HTTPParseError> {
        parseAll(Array(text.utf8), limits: limits, step: step)
    }

    /// The status the server would answer for `text`, or 200 when it parses into at least one request.
    static func status(_ text: String, limits: HTTPLimits = .init()) -> Int {
        switch parseAll(text, limits: limits) {
        case .success(let requests): requests.isEmpty ? 0 : 200
        case .failure(let error): error.status.code
        }
    }
}
