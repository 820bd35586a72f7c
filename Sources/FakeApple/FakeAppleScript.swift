import App
import Foundation

/// The stand-in's copy of Apple's `appleid.auth.js`: the same `AppleID.auth.init` / `signIn` surface, drawing a
/// "Sign in with Apple" button into `#appleid-signin` that navigates to the stand-in's `/auth/authorize`.
enum FakeAppleScript {
    /// Where Apple serves its script; the stand-in serves its copy at the same path.
    static let path = Configuration.appleScriptPath

    static func source(authorizeURL: String) -> String {
        """
        (function () {
          "use strict";
          var config = null;
          var authorizeURL = \(javaScriptString(authorizeURL));
          function url() {
            var q = [
              ["client_id", config.clientId],
              ["redirect_uri", config.redirectURI],
              ["response_type", "code id_token"],
              ["response_mode", "form_post"],
              ["scope", config.scope || ""],
              ["state", config.state || ""]
            ];
            if (config.nonce) { q.push(["nonce", config.nonce]); }
            return authorizeURL + "?" + q.map(function (p) {
              return encodeURIComponent(p[0]) + "=" + encodeURIComponent(p[1]);
            }).join("&");
          }
          function signIn() {
            if (!config) { throw new Error("AppleID.auth.init was not called"); }
            window.location.assign(url());
            return new Promise(function () {});
          }
          function drawButton() {
            var el = document.getElementById("appleid-signin");
            if (!el || el.querySelector("button")) { return; }
            var b = document.createElement("button");
            b.type = "button";
            b.className = "button apple";
            b.id = "appleid-signin-button";
            b.innerHTML = "<span aria-hidden=\\"true\\"></span> " +
              (el.dataset.type === "sign-up" ? "Sign up with Apple" : "Sign in with Apple");
            b.addEventListener("click", signIn);
            el.appendChild(b);
          }
          window.AppleID = { auth: {
            init: function (c) {
              config = c;
              if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", drawButton); }
              else { drawButton(); }
            },
            signIn: signIn
          } };
        })();
        """
    }

    /// A JavaScript string literal safe inside a `<script>` body: quotes, backslashes, markup characters and
    /// everything outside printable ASCII become `\uXXXX` escapes (UTF-16 code units, so surrogates are kept).
    static func javaScriptString(_ value: String) -> String {
        var out = "\""
        for unit in value.utf16 {
            let isPlain = unit >= 0x20 && unit <= 0x7E && !"\"\\<>&'".utf16.contains(unit)
            if isPlain, let scalar = Unicode.Scalar(unit) {
                out.unicodeScalars.append(scalar)
            } else {
                out += String(format: "\\u%04x", unit)
            }
        }
        return out + "\""
    }
}
