import Foundation
import JSON
import Web

/// The stand-in's HTML: its consent screen, and the auto-submitting `form_post` back to the relying party.
enum FakeAppleAuthorizePage {
    static func consent(_ query: AuthorizeQuery) -> String {
        let hidden = [
            ("client_id", query.client_id), ("redirect_uri", query.redirect_uri),
            ("response_type", query.response_type), ("response_mode", query.response_mode),
            ("scope", query.scope), ("state", query.state), ("nonce", query.nonce),
        ].compactMap { name, value in value.map { hiddenField(name, $0) } }.joined(separator: "\n      ")
        return page(title: "Sign in with Apple", body: """
            <section class="card authorize">
              <h1>Sign in with Apple</h1>
              <p class="lead">Local stand-in for appleid.apple.com. Use <b>\(escape(query.client_id))</b> with your Apple ID.</p>
              <form method="POST" action="/auth/authorize">
                \(hidden)
                <label for="name">Name</label>
                <input type="text" id="name" name="name" value="Jane Appleseed" autocomplete="name">
                <label for="email">Email</label>
                <input type="email" id="email" name="email" value="jane@example.com" required autocomplete="email">
                <label class="choice"><input type="checkbox" name="hideEmail"> Hide my email (private relay)</label>
                <button class="button apple" type="submit">Continue</button>
                <button class="button cancel" type="submit" name="cancel" value="1" formnovalidate>Cancel</button>
              </form>
            </section>
            """)
    }

    /// Apple's page for an authorization it refuses before the consent screen (400): the error code and its words.
    static func error(_ code: String, _ description: String) -> Response {
        .html(page(title: "Sign in with Apple", body: """
            <section class="card authorize">
              <h1>\(escape(code))</h1>
              <p class="lead">\(escape(description))</p>
            </section>
            """), status: .badRequest)
    }

    /// Apple's `response_mode=form_post`: a page that POSTs `fields` to `url` as soon as it loads.
    static func formPost(to url: String, fields: [(String, String)]) -> String {
        let inputs = fields.map { hiddenField($0.0, $0.1) }.joined(separator: "\n    ")
        return page(title: "Signing in", body: """
            <form id="form_post" method="POST" action="\(escape(url))">
                \(inputs)
                <noscript><button class="button" type="submit">Continue</button></noscript>
              </form>
              <script>document.getElementById("form_post").submit();</script>
            """)
    }

    /// Apple's `response_mode=web_message`: a page that hands the result to the window that opened it, as
    /// `AppleID.auth.signIn()` resolves with it: `{authorization: {code, id_token, state}, user?}`, `user` an
    /// object; or `{error}` when the user cancelled, which the stand-in's script rejects with. `postMessage`
    /// targets the redirect URI's origin only (HTML Living Standard §9.3.3), so no other site that opened the popup
    /// can read the result.
    static func webMessage(to redirectURI: String, fields: [(String, String)]) throws -> String {
        let values = Dictionary(fields, uniquingKeysWith: { $1 })
        var result: [String: JSONValue]
        if let error = values["error"] {
            result = ["error": .string(error)]
        } else {
            var authorization: [String: JSONValue] = [:]
            for name in ["code", "id_token", "state"] { authorization[name] = values[name].map { .string($0) } }
            result = ["authorization": .object(authorization)]
            if let user = values["user"] { result["user"] = try JSONValue(parsingText: Array(user.utf8)) }
        }
        let json = String(decoding: JSONValue.object(result).serialized(), as: UTF8.self)
        let target = URLComponents(string: redirectURI).map { parts in
            "\(parts.scheme ?? "https")://\(parts.host ?? "")" + (parts.port.map { ":\($0)" } ?? "")
        } ?? redirectURI
        let post = "window.opener.postMessage(JSON.parse(\(FakeAppleScript.javaScriptString(json))), "
            + "\(FakeAppleScript.javaScriptString(target)));"
        return page(title: "Signing in", body: """
            <p id="web_message">Signing you in…</p>
              <script>
                if (window.opener) { \(post) }
                else { document.getElementById("web_message").textContent = "The page that opened this window is gone."; }
              </script>
            """)
    }

    /// The `user` field Apple sends on a first authorization: `{"name":{"firstName","lastName"},"email"}`, each
    /// member only when its scope was asked for; nil when neither was.
    static func userJSON(name: String?, email: String?) throws -> String? {
        var user: [String: JSONValue] = [:]
        if let name {
            let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
            user["name"] = ["firstName": .string(parts.first ?? ""),
                            "lastName": .string(parts.count > 1 ? parts[1] : "")]
        }
        if let email { user["email"] = .string(email) }
        guard !user.isEmpty else { return nil }
        return String(decoding: JSONValue.object(user).serialized(), as: UTF8.self)
    }

    private static func hiddenField(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">"
    }

    private static func escape(_ text: String) -> String { HTMLEscaping.escape(text) }

    private static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
          body { font-family: -apple-system, "Helvetica Neue", Arial, sans-serif; background: #f5f5f7; color: #1d1d1f;
                 margin: 0; padding: 56px 20px; }
          .card { background: #fff; border-radius: 14px; padding: 36px; max-width: 420px; margin: 0 auto;
                  box-shadow: 0 8px 30px rgba(0,0,0,.06); }
          h1 { font-size: 26px; margin: 0 0 8px; } .lead { color: #6e6e73; }
          label { display: block; font-size: 14px; color: #6e6e73; margin: 16px 0 6px; }
          input[type=text], input[type=email] { width: 100%; box-sizing: border-box; padding: 11px 12px;
                  font-size: 16px; border: 1px solid #d2d2d7; border-radius: 10px; }
          .choice { display: flex; gap: 8px; align-items: center; color: #1d1d1f; }
          .button { width: 100%; margin-top: 24px; padding: 12px; border: 0; border-radius: 980px; background: #000;
                    color: #fff; font-size: 16px; cursor: pointer; }
          .button.cancel { margin-top: 12px; background: #e8e8ed; color: #1d1d1f; }
        </style></head>
        <body>
        \(body)
        </body>
        </html>
        """
    }
}
