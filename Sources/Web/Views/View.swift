import HTTPCore

/// A rendered HTML page; returned from a handler it is sent as `text/html; charset=utf-8`.
package struct View: Sendable, ResponseEncodable {
    package var html: String

    package init(html: String) { self.html = html }

    package func encodeResponse(for request: Request) throws -> Response {
        Response.html(html)
    }
}

extension Request {
    /// The application's templates: `try req.view.render("login", context)`. Throws when none are configured.
    package var view: ViewRenderer {
        get throws {
            guard let views = context.views else { throw ViewError.noRenderer }
            return views
        }
    }
}
