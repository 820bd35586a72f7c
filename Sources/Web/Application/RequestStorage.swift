/// A key for `RequestStorage`: the type is the key, `Value` the stored type.
package protocol RequestStorageKey {
    associatedtype Value
}

/// Per-request values keyed by type, for middleware to hand data to handlers.
package struct RequestStorage {
    private var values: [ObjectIdentifier: Any] = [:]

    package init() {}

    /// The value stored under `key`, nil when none.
    package subscript<Key: RequestStorageKey>(key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set { values[ObjectIdentifier(key)] = newValue }
    }

    /// Values stored directly by their own type (used by `req.auth`).
    subscript<T>(type type: T.Type) -> T? {
        get { values[ObjectIdentifier(type)] as? T }
        set { values[ObjectIdentifier(type)] = newValue }
    }

    mutating func remove<T>(type: T.Type) { values[ObjectIdentifier(type)] = nil }
}
