// Popup mode of the login pages (SIWA_WEB_MODE=popup): the page configures Apple's button with
// AppleID.auth.init({..., usePopup: true}); this script posts what the popup resolves with,
// {authorization: {code, id_token, state}, user?}, to POST /login/siwa/popup, and says why a sign-in did not
// finish. Apple's JS reports the popup's end with the AppleIDSignInOnSuccess and AppleIDSignInOnFailure events
// ("Configuring your webpage for Sign in with Apple").
(function () {
  "use strict";
  var button = document.getElementById("appleid-signin");
  var message = document.getElementById("signin-message");
  if (!window.AppleID || !button) { return; }

  function show(text, startAgain, retry) {
    message.textContent = text;
    if (startAgain) {
      // The page's state was used or has expired: a fresh page brings a new one.
      var link = document.createElement("a");
      link.href = window.location.pathname;
      link.textContent = "Start again";
      message.appendChild(document.createTextNode(" "));
      message.appendChild(link);
    }
    if (retry) {
      // Nothing was written and the state is unspent: the same result can still finish the sign-in, with the
      // name Apple sends only the first time, where a new popup would not bring it again.
      var again = document.createElement("button");
      again.type = "button";
      again.className = "button";
      again.textContent = "Try again";
      again.addEventListener("click", retry);
      message.appendChild(document.createTextNode(" "));
      message.appendChild(again);
    }
    message.hidden = false;
  }

  function failed(error) {
    var code = error && (error.error || error);
    if (code === "popup_closed_by_user" || code === "user_cancelled_authorize") {
      show("Sign in with Apple was cancelled: the Apple window closed before you finished. Press the button to try again.");
    } else if (code === "popup_blocked_by_browser") {
      show("Your browser blocked the Apple sign-in window. Allow pop-ups for this site and press the button again.");
    } else {
      show("Sign in with Apple did not complete. Please try again.");
    }
  }

  // The 503 the server answers when the code exchange's request may have reached Apple with no usable answer back
  // (a timeout, garbage): Apple may have spent the single-use code, so the retry sends the identity token without it.
  var codeMayBeUsedUp = "the authorization code may be used up";

  function send(result, withoutCode) {
    function again() { send(result, withoutCode); }
    var authorization = (result && result.authorization) || {};
    var body = { id_token: authorization.id_token || "", state: authorization.state || "" };
    if (authorization.code && !withoutCode) { body.code = authorization.code; }
    if (result && result.user) { body.user = result.user; }
    message.hidden = true;
    return fetch("/login/siwa/popup", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body)
    }).then(function (response) {
      // An answer that is not the server's JSON (a proxy's error page) still says the server was reached.
      return response.json().catch(function () { return null; }).then(function (answer) {
        if (!response.ok || !answer) {
          var reason = answer && typeof answer.reason === "string" ? answer.reason : "";
          var spent = response.status === 503 && reason.indexOf(codeMayBeUsedUp) !== -1;
          show(spent ? "Apple's token service gave no usable answer; try again."
            : reason || "The server could not complete the sign-in (HTTP " + response.status + "). Please try again.",
            response.status === 401,
            response.status === 503 ? (spent ? function () { send(result, true); } : again) : null);
          return;
        }
        window.location.assign(answer.redirect || "/");
      });
    }).catch(function () {
      show("The sign-in could not reach the server. Check your connection and try again.", false, again);
    });
  }

  document.addEventListener("AppleIDSignInOnSuccess", function (event) { send(event.detail && event.detail.data); });
  document.addEventListener("AppleIDSignInOnFailure", function (event) { failed(event.detail && event.detail.error); });
})();
