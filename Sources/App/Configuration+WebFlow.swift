import AppleID
import Foundation
import Web

extension Configuration {
    /// The web flow's Services ID and redirect URI.
    /// - Throws: 503 naming the variables when either is not set.
    func webFlowSettings() throws -> (clientID: String, redirectURL: String) {
        guard let clientID = websiteClientID, let redirectURL else {
            throw Abort(.serviceUnavailable,
                        reason: "Sign in with Apple on the web is not configured (WEBSITE_APPLICATION_IDENTIFIER, SIWA_REDIRECT_URL).")
        }
        return (clientID, redirectURL)
    }

    /// Where Apple's button script is loaded from: Apple's CDN in production, the stand-in's copy otherwise.
    var appleScriptURL: String {
        appleBaseURL == Configuration.appleProductionURL
            ? AppleWebScript.cdnOrigin + AppleWebScript.path : appleBaseURL + AppleWebScript.path
    }

    /// Apple's authorize URL for a browser without JavaScript: the request the button makes in redirect mode
    /// (`response_mode=form_post`, which Apple requires when scopes are asked for).
    func authorizeURL(clientID: String, redirectURL: String, state: String, nonce: String) -> String {
        var components = URLComponents(string: appleBaseURL + "/auth/authorize")
        components?.queryItems = [
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURL),
            URLQueryItem(name: "response_type", value: "code id_token"),
            URLQueryItem(name: "scope", value: "name email"),
            URLQueryItem(name: "response_mode", value: "form_post"),
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "nonce", value: nonce),
        ]
        return components?.url?.absoluteString ?? appleBaseURL + "/auth/authorize"
    }
}
