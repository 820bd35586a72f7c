/// Persistence of the last good JWKS body, so the key set survives a restart while Apple is unreachable.
///
/// `load` is called once, before the first fetch; `save` after each fetch whose body parsed.
package struct JWKSCacheStore: Sendable {
    package var load: @Sendable () async -> [UInt8]?
    package var save: @Sendable ([UInt8]) async -> Void

    package init(load: @escaping @Sendable () async -> [UInt8]?, save: @escaping @Sendable ([UInt8]) async -> Void) {
        self.load = load
        self.save = save
    }
}
