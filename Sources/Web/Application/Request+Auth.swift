extension Request {
    /// The authenticated identities of this request: `req.auth.login(user)`, `try req.auth.require(User.self)`.
    package var auth: Authentication { Authentication(request: self) }

    /// A view onto the request's storage for authenticated values, one per type.
    package struct Authentication {
        let request: Request

        /// Marks `value` as authenticated for the rest of this request.
        package func login<T>(_ value: T) { request.storage[type: T.self] = value }

        /// Forgets the authenticated value of type `T`.
        package func logout<T>(_ type: T.Type) { request.storage.remove(type: T.self) }

        /// The authenticated value of type `T`, or nil.
        package func get<T>(_ type: T.Type = T.self) -> T? { request.storage[type: T.self] }

        /// Whether a value of type `T` is authenticated.
        package func has<T>(_ type: T.Type) -> Bool { get(type) != nil }

        /// The authenticated value of type `T`; throws 401 when there is none.
        package func require<T>(_ type: T.Type = T.self) throws -> T {
            guard let value = get(type) else { throw Abort(.unauthorized) }
            return value
        }
    }
}
