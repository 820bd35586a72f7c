import Foundation
import JSON

extension Request {
    /// The request body as typed content: `try req.content.decode(SignIn.self)`.
    public var content: ContentContainer { ContentContainer(request: self) }
}

/// Decodes a request body by its `Content-Type`: JSON or URL-encoded form.
public struct ContentContainer {
    let request: Request

    /// The media type of the body, lowercased, without parameters: `application/json`.
    public var mediaType: String? { MediaType.essence(of: request.headers["Content-Type"]) }

    /// Decodes the body as `T`.
    ///
    /// - `application/json` (and `+json` types) with `JSONDecoder`, dates in ISO 8601, once the body has passed
    ///   the strict RFC 8259 parser (`JSONValue(parsingText:)`): no trailing comma, comment, leading zero, invalid
    ///   UTF-8 or lone surrogate, nesting at most 32 deep, which `JSONDecoder` alone would let through in part;
    /// - `application/x-www-form-urlencoded` with `FormDecoder`.
    ///
    /// Throws 415 for any other or a missing content type, and 400 with a reason naming the field when the body
    /// does not decode (`Missing field 'token'`, `Field 'name' must be a string`).
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        guard let mediaType else {
            throw Abort(.unsupportedMediaType, reason: "Missing Content-Type; expected JSON or a form")
        }
        do {
            if mediaType == "application/json" || mediaType.hasSuffix("+json") {
                guard !request.body.isEmpty else { throw Abort(.badRequest, reason: "Request body is empty") }
                guard (try? JSONValue(parsingText: request.body)) != nil else {
                    throw Abort(.badRequest, reason: "Malformed request body")
                }
                return try JSONCoding.decoder().decode(T.self, from: Data(request.body))
            }
            if mediaType == "application/x-www-form-urlencoded" {
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
        throw Abort(.unsupportedMediaType, reason: "Unsupported Content-Type '\(mediaType)'; expected JSON or a form")
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
