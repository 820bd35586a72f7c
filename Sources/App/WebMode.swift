import Foundation

/// How `/login` and `/register` run Apple's button (`SIWA_WEB_MODE`).
///
/// Apple's JS (`AppleID.auth.init`, "Configuring your webpage for Sign in with Apple") either navigates the page
/// to Apple and back (`usePopup: false`, Apple's `form_post` to the redirect URI), or opens Apple in a popup whose
/// result comes back to the page (`usePopup: true`, `response_mode=web_message`, delivered with `postMessage`,
/// HTML Living Standard §9.3).
package enum WebMode: String, Sendable, Equatable, CaseIterable {
    /// The full-page redirect: the default, and the flow that works without JavaScript.
    case redirect
    /// Apple in a popup: the page stays where it is, and its script posts the result to `POST /login/siwa/popup`.
    case popup

    /// The name of the variable that chooses the mode.
    package static let variable = "SIWA_WEB_MODE"

    /// The mode a `SIWA_WEB_MODE` value names, case and surrounding blanks ignored; nil for any other value.
    package init?(environmentValue: String) {
        self.init(rawValue: environmentValue.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
