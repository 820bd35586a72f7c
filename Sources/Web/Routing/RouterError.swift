/// A route table that cannot be served; raised by `Application.boot()`.
package enum RouterError: Error, Equatable, CustomStringConvertible {
    /// Two routes with the same method and the same path shape (parameter names do not count).
    case duplicateRoute(existing: String, new: String)
    /// `**` must be the last path component.
    case catchallNotLast(String)

    package var description: String {
        switch self {
        case .duplicateRoute(let existing, let new): "Duplicate route: '\(new)' conflicts with '\(existing)'"
        case .catchallNotLast(let route): "Invalid route '\(route)': '**' must be the last path component"
        }
    }
}
