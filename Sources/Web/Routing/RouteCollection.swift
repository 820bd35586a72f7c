/// A group of routes registered together, usually a controller.
package protocol RouteCollection {
    /// Registers the collection's routes on `routes`.
    func boot(routes: any RoutesBuilder) throws
}
