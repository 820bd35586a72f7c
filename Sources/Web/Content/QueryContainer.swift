/// The decoded query string of a request: `req.query["next"]`, `try req.query.decode(Search.self)`.
package struct QueryContainer: Sendable {
    private let pairs: [(name: String, value: String)]
    private let isMalformed: Bool

    init(rawQuery: Substring?) {
        do {
            pairs = try URLEncodedForm.parse(rawQuery ?? "")
            isMalformed = false
        } catch {
            pairs = []
            isMalformed = true
        }
    }

    /// The first value of `name`, or nil (also when the query string is malformed).
    package subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    package func values(for name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// Decodes the query as a form; throws 400 naming the field when it does not fit `T`, or when malformed.
    package func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        guard !isMalformed else { throw Abort(.badRequest, reason: "Malformed query string") }
        do {
            return try FormDecoder().decode(T.self, from: URLEncodedForm.dictionary(pairs))
        } catch let error as DecodingError {
            throw Abort(.badRequest, reason: DecodingErrorReason.describe(error))
        }
    }
}
