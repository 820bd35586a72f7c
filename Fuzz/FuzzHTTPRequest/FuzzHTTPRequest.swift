import FuzzSupport
@testable import HTTPCore

/// Small limits so that every boundary (line length, head size, field count, body size) is within a few KB.
let limits = HTTPLimits(maxRequestLineLength: 512, maxHeaderSectionSize: 2048, maxHeaderCount: 16, maxBodySize: 4096)
/// For re-parsing a re-serialised head: invalid UTF-8 becomes U+FFFD (3 bytes), so sizes may triple.
let relaxed = HTTPLimits(maxRequestLineLength: 512 * 4, maxHeaderSectionSize: 2048 * 4, maxHeaderCount: 16,
                         maxBodySize: 4096)

/// Everything the parser reports for one input: the requests in order, then the error or the pending state.
struct Outcome: Equatable {
    var events: [String] = []
    var error: HTTPParseError?
    var midRequest = false
}

func describe(_ head: HTTPRequestHead) -> String {
    let request = head.request
    var text = "\(request.method.rawValue) \(request.target) \(request.version) \(head.framing) "
        + "keepAlive=\(head.keepAlive) continue=\(head.expectsContinue)"
    for field in request.headers { text += "\n\(field.name): \(field.value)" }
    text += "\nbody=\(request.body)"
    for field in request.trailers { text += "\ntrailer \(field.name): \(field.value)" }
    return text
}

/// Feeds `pieces` one after another, draining the parser after each; heads are checked for re-serialisation.
func run(_ pieces: [UnsafeRawBufferPointer]) -> Outcome {
    var parser = HTTPRequestParser(limits: limits)
    let buffer = ReadBuffer(capacity: 64)
    var outcome = Outcome()
    for piece in pieces {
        buffer.append(piece)
        do {
            loop: while true {
                switch try parser.next(buffer) {
                case .needMore: break loop
                case .head(let head): outcome.events.append("head " + describe(head))
                case .request(let head):
                    checkReserialisation(head)
                    outcome.events.append("request " + describe(head))
                }
            }
        } catch {
            outcome.error = error
            return outcome
        }
    }
    outcome.midRequest = !parser.isBetweenRequests
    return outcome
}

/// An accepted head, written back out as `method SP target SP version CRLF *(name: value CRLF) CRLF`,
/// must parse to the same head (RFC 9112 §2.1).
func checkReserialisation(_ head: HTTPRequestHead) {
    let request = head.request
    var text = "\(request.method.rawValue) \(request.target) \(request.version)\r\n"
    for field in request.headers { text += "\(field.name): \(field.value)\r\n" }
    text += "\r\n"
    let bytes = Array(text.utf8)
    let reparsed: HTTPRequestHead
    do {
        reparsed = try bytes.withUnsafeBytes { all throws(HTTPParseError) in
            try HTTPHeadParser.parse(UnsafeRawBufferPointer(rebasing: all[0..<(all.count - 2)]), limits: relaxed)
        }
    } catch {
        fatalError("re-serialised head refused (\(error)): \(text.debugDescription)")
    }
    var original = head
    original.request.body = []
    original.request.trailers = [:]
    guard describe(reparsed) == describe(original) else {
        fatalError("re-serialised head differs:\n\(describe(original))\n---\n\(describe(reparsed))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
package func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = checkSplitsAgree(bytes, run: run)
    return 0
}
