import Foundation
import HTTPCore
@testable import App

/// The popup's post in tests: the JSON a popup-mode page's script sends to `POST /login/siwa/popup`.
extension TestApp {
    /// Posts `body` (JSON unless `contentType` says otherwise) as the browser holding `state` in its cookie does.
    func popup(_ body: [String: Any], state: String?, contentType: String = "application/json",
               cookies: [String: String] = [:]) async throws -> HTTPClientResponse {
        var headers: HTTPHeaders = ["Content-Type": contentType, "Accept": "application/json"]
        let all = cookies.merging(state.map { ["SIWA_STATE": $0] } ?? [:]) { $1 }
        if !all.isEmpty {
            headers.add(name: "Cookie", value: all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))
        }
        return try await send(.POST, "/login/siwa/popup", headers: headers,
                              body: Array(try JSONSerialization.data(withJSONObject: body)))
    }

    /// What `AppleID.auth.signIn()` gives a page bound to `state`, flattened as the page's script posts it.
    func popupResult(state: String, subject: String, email: String? = "popup@example.com",
                     code: String? = nil, user: [String: Any]? = nil) throws -> [String: Any] {
        var body: [String: Any] = ["id_token": try webToken(state: state, subject: subject, email: email), "state": state]
        if let code { body["code"] = code }
        if let user { body["user"] = user }
        return body
    }
}
