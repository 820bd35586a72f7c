import FuzzSupport
@testable import HTTPCore

/// Small limits so that the body, extension and trailer bounds are reachable by short inputs.
let limits = HTTPLimits(maxHeaderSectionSize: 1024, maxHeaderCount: 8, maxBodySize: 8192)
/// For decoding re-encoded trailers: invalid UTF-8 becomes U+FFFD (3 bytes), so their size may triple.
let relaxed = HTTPLimits(maxHeaderSectionSize: 1024 * 4, maxHeaderCount: 8, maxBodySize: 8192)

/// What the decoder made of one input: body, trailers, whether it finished, the bytes left after the
/// last chunk, or the error.
struct Outcome: Equatable {
    var body: [UInt8] = []
    var trailers: [String] = []
    var done = false
    var leftover: [UInt8] = []
    var error: HTTPParseError?
}

func run(_ pieces: [UnsafeRawBufferPointer], limits: HTTPLimits = limits) -> Outcome {
    var decoder = ChunkedDecoder(limits: limits)
    var request = HTTPRequest(method: .POST, target: "/")
    let buffer = ReadBuffer(capacity: 64)
    var outcome = Outcome()
    var fed = 0
    for piece in pieces {
        buffer.append(piece)
        fed += 1
        do {
            if try decoder.decode(buffer, into: &request) {
                outcome.done = true
                break
            }
        } catch {
            outcome.error = error
            break
        }
    }
    outcome.body = request.body
    outcome.trailers = request.trailers.map { "\($0.name): \($0.value)" }
    if outcome.done {
        outcome.leftover = Array(buffer.readable)
        for piece in pieces[fed...] { outcome.leftover += Array(piece) }
    }
    return outcome
}

/// `body` re-encoded as chunks of `chunkSize` bytes, then the trailers, must decode to the same body and
/// trailers (RFC 9112 §7.1).
func reencode(_ outcome: Outcome, chunkSize: Int) {
    var bytes: [UInt8] = []
    var offset = 0
    while offset < outcome.body.count {
        let count = min(chunkSize, outcome.body.count - offset)
        bytes += Array(String(count, radix: 16).utf8) + [0x0D, 0x0A] + outcome.body[offset..<(offset + count)] + [0x0D, 0x0A]
        offset += count
    }
    bytes += Array("0\r\n".utf8)
    for trailer in outcome.trailers { bytes += Array(trailer.utf8) + [0x0D, 0x0A] }
    bytes += [0x0D, 0x0A]
    let again = bytes.withUnsafeBytes { run([$0], limits: relaxed) }
    guard again.done, again.error == nil, again.body == outcome.body, again.trailers == outcome.trailers else {
        fatalError("re-encoded body decodes differently:\n\(outcome)\n---\n\(again)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
package func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let whole = checkSplitsAgree(bytes) { run($0) }
    if whole.done { reencode(whole, chunkSize: 1 + Int(splitPoint(bytes, salt: 3) % 64)) }
    return 0
}
