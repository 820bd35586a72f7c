/// A group of routes registered together, usually a controller.
public protocol RouteCollection {
    /// Registers the collection's routes on `routes`.
    func boot(routes: any RoutesBuilder) throws
}
