#!/usr/bin/env python3
"""Real-browser test of the web flow: /login -> the stand-in's authorize page -> / signed in, showing the name.

Both modes: the redirect (Apple's form_post) and, on a second server with SIWA_WEB_MODE=popup, the popup (Apple's
web_message to the opener, then POST /login/siwa/popup), including a replay of the popup's result (401) and a
popup closed before the end (a message on the page).

The flow is the bound one: the authorize request carries nonce = hex SHA-256 of the SIWA_STATE cookie, the
stand-in copies it into the identity token, and the handle step accepts that token only with this browser's cookie.

Starts `siwa dev` on free ports with a temporary database and key file, drives headless Chromium through
chromedriver (Debian's chromium, chromium-driver and python3-selenium), and stops the server at the end.
With --cluster, runs the same flow through nginx in front of two instances on PostgreSQL (`Scripts/cluster`), checks
that both instances answered the browser, then stops the cluster as Ctrl-C does and checks that nothing is left.
Prints "N passed, N failed" as its last line; exits non-zero on any failure.
"""
import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from cluster import Cluster
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WAIT_SECONDS = 20
# APPLE_TIMEOUT of the popup-mode server: short, for the check of an exchange that timed out.
POPUP_APPLE_TIMEOUT = 2


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, deadline):
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer in time")


def start_server(binary, workdir, mode="redirect", apple_timeout=None):
    port, apple_port = free_port(), free_port()
    log = open(os.path.join(workdir, f"server-{mode}.log"), "w")
    process = subprocess.Popen(
        [binary, "dev", "--port", str(port), "--apple-port", str(apple_port),
         "--database", os.path.join(workdir, f"siwa-{mode}.sqlite"),
         "--key-file", os.path.join(workdir, "fake-apple-key.pem")],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, SIWA_WEB_MODE=mode, **({"APPLE_TIMEOUT": str(apple_timeout)} if apple_timeout else {})),
    )
    deadline = time.time() + WAIT_SECONDS
    wait_for(f"http://127.0.0.1:{port}/health", deadline)
    wait_for(f"http://127.0.0.1:{apple_port}/auth/keys", deadline)
    return process, port, apple_port


def set_faults(apple_port, **fields):
    """The stand-in's /dev/faults: Apple slow, throttling or down until set again (status=0 ends it)."""
    body = urllib.parse.urlencode(fields).encode()
    with urllib.request.urlopen(f"http://127.0.0.1:{apple_port}/dev/faults", data=body, timeout=10) as response:
        assert response.status == 200, response.status


def stop_server(server):
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def check_cluster(cluster, check, failed):
    """The cluster's own checks, after the flow: both instances served the browser, and Ctrl-C stops it all."""
    def both_instances_answered():
        counts = cluster.upstream_counts()
        assert all(counts.values()), f"requests per instance port through nginx: {counts}"

    def interrupt_stops_everything():
        status = cluster.interrupt()
        running, folder_left = cluster.leftovers()
        assert status == 0, f"Scripts/cluster exited with {status}"
        assert not running, f"still running after Ctrl-C: {running}"
        assert not folder_left, f"{cluster.folder} was not deleted"

    check("nginx sent the browser's requests to both instances", both_instances_answered)
    if failed:
        print(cluster.instance_logs())
    check("Ctrl-C stops every process of the cluster and deletes its folder", interrupt_stops_everything)


def browser():
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def sign_in(driver, base, name, email, signed_in=True):
    """Through the stand-in's consent page; waits for / signed in unless `signed_in` is False."""
    wait = WebDriverWait(driver, WAIT_SECONDS)
    driver.get(f"{base}/login")
    cookie = driver.get_cookie("SIWA_STATE")
    assert cookie and cookie["httpOnly"], f"SIWA_STATE cookie missing or not HttpOnly: {cookie}"
    wait.until(EC.element_to_be_clickable((By.ID, "appleid-signin-button"))).click()
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    assert "/auth/authorize" in driver.current_url, driver.current_url
    query = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    expected = hashlib.sha256(cookie["value"].encode()).hexdigest()
    assert query.get("nonce") == [expected], f"nonce {query.get('nonce')} is not hex SHA-256 of the state cookie"
    assert query.get("state") == [cookie["value"]], "state is the cookie's value"
    if driver.find_elements(By.NAME, "name"):
        field = driver.find_element(By.NAME, "name")
        field.clear()
        field.send_keys(name)
    field = driver.find_element(By.NAME, "email")
    field.clear()
    field.send_keys(email)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    if signed_in:
        wait.until(EC.presence_of_element_located((By.ID, "user-name")))
    return driver


def assert_signed_in(driver, base, name, email):
    """On / with the name and email shown, an HttpOnly session cookie, and the state cookie gone."""
    assert driver.current_url.rstrip("/") == base, driver.current_url
    assert driver.find_element(By.ID, "user-name").text == name
    assert driver.find_element(By.ID, "user-email").text.startswith(email)
    session = driver.get_cookie("session")
    assert session and session["httpOnly"], f"session cookie: {session}"
    assert driver.get_cookie("SIWA_STATE") is None, "the state cookie must be cleared once used"


def sign_out(driver):
    """Presses "Log out" on / and waits for the signed-out page."""
    driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button").click()
    WebDriverWait(driver, WAIT_SECONDS).until(EC.presence_of_element_located((By.LINK_TEXT, "Log in")))
    assert not driver.find_elements(By.ID, "user-name")


# Keeps what the page's script posts to /login/siwa/popup in sessionStorage, which outlives the page's navigation
# to / in this tab, so that the test can replay it.
RECORD_POPUP_POSTS = """
const send = window.fetch;
window.fetch = function (url, options) {
  if (String(url).endsWith("/login/siwa/popup")) { sessionStorage.setItem("popupPost", options.body); }
  return send.apply(this, arguments);
};
"""


def open_popup(driver, base):
    """/login in popup mode, the button clicked: returns the main window's handle, with the driver in the popup."""
    wait = WebDriverWait(driver, WAIT_SECONDS)
    driver.get(f"{base}/login")
    main = driver.current_window_handle
    driver.execute_script(RECORD_POPUP_POSTS)
    wait.until(EC.element_to_be_clickable((By.ID, "appleid-signin-button"))).click()
    wait.until(lambda d: len(d.window_handles) == 2)
    driver.switch_to.window(next(h for h in driver.window_handles if h != main))
    wait.until(EC.presence_of_element_located((By.NAME, "email")))
    return main


def popup_sign_in(driver, base, name, email, signed_in=True):
    """Through the popup's consent page; waits for / signed in unless `signed_in` is False."""
    wait = WebDriverWait(driver, WAIT_SECONDS)
    main = open_popup(driver, base)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
    assert query.get("response_mode") == ["web_message"], driver.current_url
    state = query["state"][0]
    assert query.get("nonce") == [hashlib.sha256(state.encode()).hexdigest()], "nonce is hex SHA-256 of the state"
    if driver.find_elements(By.NAME, "name"):
        driver.find_element(By.NAME, "name").clear()
        driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.NAME, "email").clear()
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    driver.switch_to.window(main)
    if signed_in:
        wait.until(EC.presence_of_element_located((By.ID, "user-name")))
    wait.until(lambda d: len(d.window_handles) == 1)
    return state


def post_json(url, body, cookie):
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json", "Cookie": cookie})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def popup_checks(driver, base, apple_port, check, database):
    """The popup flow on a server in popup mode: sign in, a replay refused, a closed popup explained, Apple down."""
    posted = {}

    def popup_page_headers():
        with urllib.request.urlopen(f"{base}/login", timeout=10) as response:
            policy = response.headers.get("Cross-Origin-Opener-Policy")
            assert policy == "same-origin-allow-popups", f"Cross-Origin-Opener-Policy: {policy}"

    def popup_first_sign_in():
        driver.delete_all_cookies()
        posted["state"] = popup_sign_in(driver, base, "Pop Appleseed", "pop@example.com")
        assert_signed_in(driver, base, "Pop Appleseed", "pop@example.com")
        posted["body"] = driver.execute_script("return sessionStorage.getItem('popupPost');")
        assert posted["body"] and "id_token" in posted["body"], posted["body"]

    def popup_replay_refused():
        status, text = post_json(f"{base}/login/siwa/popup", posted["body"], f"SIWA_STATE={posted['state']}")
        assert status == 401, f"a second use of the popup's result: {status} {text}"
        assert '"error":true' in text.replace(" ", ""), text

    def popup_closed_shows_message():
        sign_out(driver)
        main = open_popup(driver, base)
        driver.close()
        driver.switch_to.window(main)
        message = WebDriverWait(driver, WAIT_SECONDS).until(EC.visibility_of_element_located((By.ID, "signin-message")))
        assert "cancelled" in message.text, message.text
        assert "/login" in driver.current_url and not driver.find_elements(By.ID, "user-name")

    check("popup mode: /login carries Cross-Origin-Opener-Policy: same-origin-allow-popups", popup_page_headers)
    check("popup mode: sign-in in a popup lands on / signed in with the name", popup_first_sign_in)
    check("popup mode: a second use of the same result is refused (401)", popup_replay_refused)
    check("popup mode: a popup closed before the end shows a message on the page", popup_closed_shows_message)

    def popup_cancel_shows_message():
        main = open_popup(driver, base)
        driver.find_element(By.CSS_SELECTOR, "button[name=cancel]").click()
        driver.switch_to.window(main)
        message = WebDriverWait(driver, WAIT_SECONDS).until(EC.visibility_of_element_located((By.ID, "signin-message")))
        assert "cancelled" in message.text, message.text
        WebDriverWait(driver, WAIT_SECONDS).until(lambda d: len(d.window_handles) == 1)

    check("popup mode: Cancel on Apple's page shows a message on the page", popup_cancel_shows_message)

    def popup_apple_down_offers_try_again():
        wait = WebDriverWait(driver, WAIT_SECONDS)
        driver.delete_all_cookies()
        set_faults(apple_port, status=503, retryAfter=5)
        try:
            popup_sign_in(driver, base, "Popup Kept", "popup-kept@example.com", signed_in=False)
            again = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#signin-message button")))
            assert again.text == "Try again", again.text
        finally:
            set_faults(apple_port, status=0)
        again.click()
        wait.until(EC.presence_of_element_located((By.ID, "user-name")))
        assert_signed_in(driver, base, "Popup Kept", "popup-kept@example.com")

    check("popup mode: Apple down at the code exchange offers Try again, which signs in with the name",
          popup_apple_down_offers_try_again)

    def popup_timeout_retries_without_the_code():
        # The popup server's APPLE_TIMEOUT is POPUP_APPLE_TIMEOUT: Apple answering later than that may have spent
        # the code, so Try again posts the identity token alone.
        wait = WebDriverWait(driver, WAIT_SECONDS)
        sign_out(driver)
        driver.delete_all_cookies()
        set_faults(apple_port, latency=POPUP_APPLE_TIMEOUT + 2)
        try:
            popup_sign_in(driver, base, "Popup Late", "popup-late@example.com", signed_in=False)
            again = wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, "#signin-message button")))
            message = driver.find_element(By.ID, "signin-message").text
            assert "no usable answer" in message, message
        finally:
            set_faults(apple_port, latency=0)
        again.click()
        wait.until(EC.presence_of_element_located((By.ID, "user-name")))
        assert_signed_in(driver, base, "Popup Late", "popup-late@example.com")
        with sqlite3.connect(database) as db:
            stored = db.execute("SELECT COUNT(*) FROM apple_tokens JOIN users ON users.id = apple_tokens.user_id"
                                " WHERE users.email = 'popup-late@example.com'").fetchone()[0]
        assert stored == 0, "signed in with the identity token alone: no refresh token stored"

    check("popup mode: after a timeout at the code exchange, Try again signs in without the code, with the name",
          popup_timeout_retries_without_the_code)


def main():
    binary = os.environ.get("SIWA_BINARY", os.path.join(ROOT, ".build", "debug", "siwa"))
    results = []
    clustered = "--cluster" in sys.argv[1:]
    with tempfile.TemporaryDirectory() as workdir:
        if clustered:
            server, cluster = None, Cluster(binary, workdir, free_port())
            port = cluster.port
        else:
            (server, port, apple_port), cluster = start_server(binary, workdir), None
        driver = None
        base = f"http://127.0.0.1:{port}"

        def check(name, body):
            try:
                body()
                results.append((name, None))
                print(f"ok   {name}")
            except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the others
                results.append((name, error))
                print(f"FAIL {name}: {error!r}")

        try:
            driver = browser()

            def first_sign_in():
                sign_in(driver, base, "Jane Appleseed", "jane@example.com")
                assert_signed_in(driver, base, "Jane Appleseed", "jane@example.com")

            def log_out():
                sign_out(driver)

            def returning_user_keeps_name():
                sign_in(driver, base, "Someone Else", "jane@example.com")
                assert driver.find_element(By.ID, "user-name").text == "Jane Appleseed"

            def delete_account():
                driver.find_element(By.CSS_SELECTOR, "details.danger-zone summary").click()
                driver.find_element(By.CSS_SELECTOR, "form[action='/account/delete'] button").click()
                WebDriverWait(driver, WAIT_SECONDS).until(EC.presence_of_element_located((By.LINK_TEXT, "Log in")))
                assert not driver.find_elements(By.ID, "user-name")
                sign_in(driver, base, "New Person", "jane@example.com")
                assert driver.find_element(By.ID, "user-name").text == "New Person", "a deleted account starts afresh"

            check("first sign-in lands on / signed in with the name", first_sign_in)
            check("log out ends the session", log_out)
            check("a returning user is found by sub and keeps the name", returning_user_keeps_name)
            check("deleting the account from / signs out and forgets the user", delete_account)

            def cancel_returns_to_login():
                sign_out(driver)
                wait = WebDriverWait(driver, WAIT_SECONDS)
                driver.get(f"{base}/login")
                wait.until(EC.element_to_be_clickable((By.ID, "appleid-signin-button"))).click()
                wait.until(EC.presence_of_element_located((By.NAME, "email")))
                driver.find_element(By.CSS_SELECTOR, "button[name=cancel]").click()
                message = wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "p.signin-message")))
                assert "cancelled" in message.text, message.text
                assert "/login" in driver.current_url and not driver.find_elements(By.ID, "user-name")

            check("Cancel on Apple's page returns to /login saying so", cancel_returns_to_login)

            def apple_down_keeps_the_name():
                wait = WebDriverWait(driver, WAIT_SECONDS)
                set_faults(apple_port, status=503, retryAfter=5)
                try:
                    sign_in(driver, base, "Kept Name", "kept@example.com", signed_in=False)
                    again = wait.until(EC.element_to_be_clickable((By.XPATH, "//button[text()='Try again']")))
                    assert "Sign-in not finished" in driver.title, driver.title
                finally:
                    set_faults(apple_port, status=0)
                again.click()
                wait.until(EC.presence_of_element_located((By.ID, "user-name")))
                assert_signed_in(driver, base, "Kept Name", "kept@example.com")
                sign_out(driver)

            if not cluster:
                check("Apple down at the code exchange: the page's Try again signs in with the name once Apple is back",
                      apple_down_keeps_the_name)
                popup_server, popup_port, popup_apple_port = start_server(binary, workdir, mode="popup",
                                                                          apple_timeout=POPUP_APPLE_TIMEOUT)
                try:
                    popup_checks(driver, f"http://127.0.0.1:{popup_port}", popup_apple_port, check,
                                 os.path.join(workdir, "siwa-popup.sqlite"))
                finally:
                    stop_server(popup_server)

            def no_script_refused():
                refused = [entry["message"] for entry in driver.get_log("browser")
                           if "Content Security Policy" in entry["message"]]
                assert not refused, f"the pages' policy refused: {refused}"

            check("no script or inline script was refused by the pages' Content-Security-Policy", no_script_refused)
            if cluster:
                check_cluster(cluster, check, failed=any(error for _, error in results))
        except Exception as error:  # noqa: BLE001
            results.append(("browser start", error))
            print(f"FAIL browser start: {error!r}")
        finally:
            if driver is not None:
                driver.quit()
            if cluster:
                cluster.kill()
            else:
                stop_server(server)
            if any(error for _, error in results):
                names = ["cluster.log"] if cluster else ["server-redirect.log", "server-popup.log"]
                for name in (n for n in names if os.path.exists(os.path.join(workdir, n))):
                    with open(os.path.join(workdir, name)) as log:
                        print(f"--- {name} ---")
                        print(log.read()[-4000:])
    failed = sum(1 for _, error in results if error)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
