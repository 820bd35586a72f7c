/// The house shape of an error: a struct whose `reason` says what failed, for code and tests to match on, and whose
/// other fields (a detail for the log) never take part in comparisons. A conforming type gets `==` by reason.
///
/// ```swift
/// public struct JWTError: ReasonError {
///     public enum Reason: Equatable, Sendable { case malformed, badSignature }
///     public var reason: Reason
///     public var detail: String
/// }
/// ```
package protocol ReasonError: Error, Equatable, Sendable {
    associatedtype Reason: Equatable & Sendable
    /// What failed.
    var reason: Reason { get }
}

extension ReasonError {
    /// Errors compare by reason only: the rest is for humans.
    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.reason == rhs.reason }
}
