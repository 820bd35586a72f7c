import HTTPCore

/// A rendered HTML page; returned from a handler it is sent as `text/html; charset=utf-8`.
public struct View: Sendable, ResponseEncodable {
    public var html: String

    public init(html: String) { self.html = html }

    public func encodeResponse(for request: Request) throws -> Response {
        Response.html(html)
    }
}

extension Request {
    /// The application's templates: `try req.view.render("login", context)`. Throws when none are configured.
    public var view: ViewRenderer {
        get throws {
            guard let views = context.views else { throw ViewError.noRenderer }
            return views
        }
    }
}
