import Foundation
import HTTPCore
import JSON

extension Request {
    /// The request body as typed content: `try req.content.decode(SignIn.self)`.
    package var content: ContentContainer { ContentContainer(request: self) }
}

/// Decodes a request body by its `Content-Type`: JSON or URL-encoded form.
package struct ContentContainer {
    let request: Request

    /// The bodies a route takes: what its API document says it accepts, and nothing else (415).
    package enum Accepted: Sendable {
        /// `application/json` and `+json` types.
        case json
        /// `application/x-www-form-urlencoded`.
        case form
        /// Either, as Vapor's `req.content.decode` takes them.
        case jsonOrForm

        var description: String {
            switch self {
            case .json: "JSON (Content-Type: application/json)"
            case .form: "a form (Content-Type: application/x-www-form-urlencoded)"
            case .jsonOrForm: "JSON or a form"
            }
        }
    }

    /// The media type of the body, lowercased, without parameters: `application/json`.
    package var mediaType: String? { MediaType.essence(of: request.headers["Content-Type"]) }

    /// Whether the body is JSON by its media type (`application/json` or a `+json` type).
    package var isJSON: Bool { mediaType.map(Self.isJSON) ?? false }

    private static func isJSON(_ mediaType: String) -> Bool {
        mediaType == "application/json" || mediaType.hasSuffix("+json")
    }

    /// Decodes the body as `T`.
    ///
    /// - `application/json` (and `+json` types) with `JSONDecoder`, dates in ISO 8601, once the body has passed
    ///   the strict RFC 8259 parser (`JSONValue(parsingText:)`): no trailing comma, comment, leading zero, invalid
    ///   UTF-8 or lone surrogate, nesting at most 32 deep, which `JSONDecoder` alone would let through in part;
    ///   of a repeated member name, the last is read (`JSONValue.decoderInput`);
    /// - `application/x-www-form-urlencoded` with `FormDecoder`.
    ///
    /// Throws 415 for a missing content type or one `accepted` leaves out, or a content coding other than
    /// `identity` (RFC 9110 §8.4.1, §15.5.16: the body is not decoded, so it cannot be read); 400 for two
    /// `Content-Type` fields (`checkBodyFields`), and with a reason naming the field when the body does not decode
    /// (`Missing field 'token'`, `Field 'name' must be a string`).
    package func decode<T: Decodable>(_ type: T.Type = T.self, accepting accepted: Accepted = .jsonOrForm) throws -> T {
        guard let mediaType else {
            throw Abort(.unsupportedMediaType, reason: "Missing Content-Type; expected \(accepted.description)")
        }
        try checkBodyFields()
        do {
            if Self.isJSON(mediaType), accepted != .form {
                guard !request.body.isEmpty else { throw Abort(.badRequest, reason: "Request body is empty") }
                guard let text = try? JSONValue.decoderInput(request.body) else {
                    throw Abort(.badRequest, reason: "Malformed request body")
                }
                return try JSONCoding.decoder().decode(T.self, from: Data(text))
            }
            if mediaType == "application/x-www-form-urlencoded", accepted != .json {
                let text = request.body[...]
                guard let string = String(validating: text, as: UTF8.self),
                      let pairs = try? URLEncodedForm.parse(string[...]) else {
                    throw Abort(.badRequest, reason: "Malformed form body")
                }
                return try FormDecoder().decode(T.self, from: URLEncodedForm.dictionary(pairs))
            }
        } catch let error as DecodingError {
            throw Abort(.badRequest, reason: DecodingErrorReason.describe(error))
        }
        throw Abort(.unsupportedMediaType,
                    reason: "Unsupported Content-Type '\(LogEscaping.redactingCredentials(mediaType))'; expected \(accepted.description)")
    }
}

/// The JSON coders every response and request body uses.
enum JSONCoding {
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension ContentContainer {
    /// Checks the fields that say how to read the body; every reader of a request body calls it:
    /// - 415 unless every `Content-Encoding` field names no coding but `identity` (RFC 9110 §8.4.1, §15.5.16): the
    ///   body is not decoded, so a coded one cannot be read;
    /// - 400 for more than one `Content-Type` field, a singleton (RFC 9110 §5.3, §8.3): which one counts is what a
    ///   proxy and this server could read differently. Found by an audit: the first counted.
    package func checkBodyFields() throws {
        // One pass over the fields, allocating nothing: every sign-in comes through here.
        var contentTypes = 0
        for field in request.headers {
            if HTTPHeaders.equalsIgnoringCase(field.name, "Content-Type") {
                contentTypes += 1
                if contentTypes > 1 { throw Abort(.badRequest, reason: "Content-Type is given more than once") }
            } else if HTTPHeaders.equalsIgnoringCase(field.name, "Content-Encoding"), !Self.isIdentity(field.value) {
                throw Abort(.unsupportedMediaType, reason: "Content-Encoding '\(LogEscaping.redactingCredentials(field.value))' "
                    + "is not supported; send the body uncompressed")
            }
        }
    }

    /// Whether a `Content-Encoding` value names no coding but `identity` (RFC 9110 §8.4.1).
    static func isIdentity(_ value: String) -> Bool {
        value.split(separator: ",").allSatisfy { $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity" }
    }
}
