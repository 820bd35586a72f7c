import AppleID
import Foundation

/// The stand-in's copy of Apple's `appleid.auth.js`: the same `AppleID.auth.init` / `signIn` surface, drawing a
/// "Sign in with Apple" button into `#appleid-signin`. With `usePopup: false` it navigates to the stand-in's
/// `/auth/authorize`; with `usePopup: true` it opens it in a popup, `signIn()` returns a promise of the result, and
/// a click on the button dispatches `AppleIDSignInOnSuccess` (`detail.data`) or `AppleIDSignInOnFailure`
/// (`detail.error`) on `document`, as Apple's script does.
enum FakeAppleScript {
    /// Where Apple serves its script; the stand-in serves its copy at the same path.
    static let path = AppleWebScript.path

    static func source(authorizeURL: String) -> String {
        """
        (function () {
          "use strict";
          var config = null;
          var authorizeURL = \(javaScriptString(authorizeURL));
          function url(mode) {
            var q = [
              ["client_id", config.clientId],
              ["redirect_uri", config.redirectURI],
              ["response_type", "code id_token"],
              ["response_mode", mode],
              ["scope", config.scope || ""],
              ["state", config.state || ""]
            ];
            if (config.nonce) { q.push(["nonce", config.nonce]); }
            return authorizeURL + "?" + q.map(function (p) {
              return encodeURIComponent(p[0]) + "=" + encodeURIComponent(p[1]);
            }).join("&");
          }
          \(popupSource)
          function signIn() {
            if (!config) { throw new Error("AppleID.auth.init was not called"); }
            if (config.usePopup) { return signInWithPopup(); }
            window.location.assign(url("form_post"));
            return new Promise(function () {});
          }
          function clicked() {
            var result = signIn();
            if (!config.usePopup) { return; }
            result.then(function (data) {
              document.dispatchEvent(new CustomEvent("AppleIDSignInOnSuccess", { detail: { data: data } }));
            }, function (error) {
              document.dispatchEvent(new CustomEvent("AppleIDSignInOnFailure", { detail: { error: error } }));
            });
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
            b.addEventListener("click", clicked);
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

    /// `usePopup: true`: `signInWithPopup()` opens the authorize page with `response_mode=web_message` in a popup
    /// and settles with the popup's `postMessage` (HTML Living Standard §9.3.3), taken only from the stand-in's
    /// origin and that window: resolved with `{authorization: {code, id_token, state}, user?}`, rejected with
    /// `{error}`; `{error: "popup_closed_by_user"}` when the popup closes first, as Apple's JS does.
    static let popupSource = """
        function signInWithPopup() {
            return new Promise(function (resolve, reject) {
              var popup = window.open(url("web_message"), "AppleAuthentication", "width=640,height=720");
              if (!popup) { reject({ error: "popup_blocked_by_browser" }); return; }
              var origin = new URL(authorizeURL).origin;
              var timer = null;
              function settle() {
                window.removeEventListener("message", received);
                clearInterval(timer);
              }
              function received(event) {
                if (event.origin !== origin || event.source !== popup || !event.data) { return; }
                settle();
                popup.close();
                if (event.data.error) { reject({ error: event.data.error }); } else { resolve(event.data); }
              }
              window.addEventListener("message", received);
              timer = setInterval(function () {
                if (popup.closed) { settle(); reject({ error: "popup_closed_by_user" }); }
              }, 250);
            });
          }
        """

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
