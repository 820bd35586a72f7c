import Web

extension Request {
    /// The id of the user this request's browser session is signed in as, if it has a session that is.
    var sessionUserID: String? { hasSession ? session.authenticatedID() : nil }
}
