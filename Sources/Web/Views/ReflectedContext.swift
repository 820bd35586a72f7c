import Mustache

/// A struct given to a template, its stored properties listed once. swift-mustache looks up each `{{name}}` with a
/// new `Mirror`, which lists and boxes every stored property again; that was half of the CPU of `GET /login`. This
/// lists them once per render and answers each lookup from a dictionary, with the same values: an `Optional`
/// property is its wrapped value, or nil (`Mirror.getValue(forKey:)` in swift-mustache).
///
/// Only the context a page is rendered with is listed this way; what its properties hold (a section's struct, an
/// array) is handed on as it is, so swift-mustache treats it as before.
final class ReflectedContext: MustacheParent {
    private let properties: [String: Any]

    /// Nil for what is not a plain struct (a dictionary, a class, or a value that already tells swift-mustache how
    /// to read or render it): those keep swift-mustache's own handling.
    init?(_ context: Any) {
        let mirror = Mirror(reflecting: context)
        guard mirror.displayStyle == .struct, !(context is MustacheParent), !(context is MustacheCustomRenderable),
              !(context is MustacheCustomRepresentation), !(context is MustacheTransformable),
              !(context is MustacheLambda)
        else { return nil }
        var properties: [String: Any] = [:]
        for child in mirror.children {
            // A nil property is left out: a lookup finds nothing, as it would through `Mirror`.
            guard let label = child.label, properties[label] == nil,
                  let value = (child.value as? any OptionalProperty).map({ $0.wrappedAsAny }) ?? child.value
            else { continue }
            properties[label] = value
        }
        self.properties = properties
    }

    func child(named name: String) -> Any? { properties[name] }
}

/// An `Optional` property, unwrapped one level.
private protocol OptionalProperty {
    var wrappedAsAny: Any? { get }
}

extension Optional: OptionalProperty {
    fileprivate var wrappedAsAny: Any? { map { $0 } }
}
