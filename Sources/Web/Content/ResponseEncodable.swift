import Foundation
import HTTPCore

/// What a route handler may return.
package protocol ResponseEncodable: Sendable {
    func encodeResponse(for request: Request) throws -> Response
}

/// A `Codable` value sent and received as JSON: return it from a handler, or `req.content.decode` it.
package protocol Content: Codable, Sendable, ResponseEncodable {}

extension Content {
    package func encodeResponse(for request: Request) throws -> Response {
        try Response.json(self)
    }
}

extension String: Content {}
extension Int: Content {}
extension Double: Content {}
extension Bool: Content {}
extension UUID: Content {}
extension Date: Content {}
extension Array: ResponseEncodable where Element: Content {}
extension Array: Content where Element: Content {}
extension Dictionary: ResponseEncodable where Key == String, Value: Content {}
extension Dictionary: Content where Key == String, Value: Content {}

extension Response: ResponseEncodable {
    package func encodeResponse(for request: Request) throws -> Response { self }
}

extension String: ResponseEncodable {
    /// Plain UTF-8 text.
    package func encodeResponse(for request: Request) throws -> Response { Response(text: self) }
}

extension HTTPStatus: ResponseEncodable {
    /// The status with an empty body.
    package func encodeResponse(for request: Request) throws -> Response { Response(status: self) }
}
