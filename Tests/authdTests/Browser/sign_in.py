"""Signs in to authd through its hosted pages in Chromium (headless, through chromedriver),
as a person would, for an OpenID Connect client whose redirect URI is a loopback address:
this script serves that address itself (RFC 8252 §7.3), so the browser lands on a real page.

The plan (JSON) says what to do:
  authorize       the /authorize URL to open (its redirect_uri on 127.0.0.1:PORT)
  username, password
  code            a code of the authenticator app, typed on the second-factor page
  recovery_code   a recovery code, typed there instead
  consent         "allow" or "deny" on the consent page
  provider        {"button": id, "username"?: …, "password"?: …}: the sign-in page's provider
                  button is clicked instead, and the username and password typed on the
                  provider's own sign-in page (another authd), which sends the browser back
                  (without them, the provider's page sends it back by itself)
  passkey         {"access_token": …, "page": URL, "mode": "autofill"|"button"}: Chrome's virtual
                  authenticator (the DevTools WebAuthn domain) registers a passkey for the
                  account with that token on an authd page; then the sign-in page signs in
                  with it: through the username field's autofill (conditional mediation, which
                  the virtual authenticator answers as a person picking the passkey would), or
                  through the passkey button in a browser that offers no such autofill
  token_endpoint, client_id, code_verifier
                  exchange the code the browser brought back, as the client would, right
                  away (the tokens are recorded; "{id_token}" in a later URL is its ID token)
  refused         first, a /authorize URL authd must refuse on its own page (its screenshot is kept)
  phone           true: a phone's window (390 × 844) instead of a desktop's
  then            further URLs to open in the same browser, one after another (a second
                  /authorize, a /logout, a prompt=none request): each is followed until it
                  lands back at this script's server, whose URL is recorded

Prints what it saw as JSON: each page's heading and name, the page's language and fields'
autocomplete values, the URL each step landed on, the console's messages; saves a
screenshot of each page into SHOTS.

usage: sign_in.py PLAN --port PORT --name NAME --language en|ja --shots FOLDER
"""
import argparse
import http.server
import json
import shutil
import sys
import threading
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from page_waits import gone

parser = argparse.ArgumentParser()
parser.add_argument("plan")
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--name", required=True)
parser.add_argument("--language", default="en")
parser.add_argument("--shots", required=True)
arguments = parser.parse_args()
plan = json.loads(arguments.plan)
app = f"http://127.0.0.1:{arguments.port}/"


class App(http.server.BaseHTTPRequestHandler):
    """The client's pages: whatever authd sends the browser to, it shows."""

    def do_GET(self):
        body = b"<!DOCTYPE html><html lang=en><title>App</title><h1>Back at the app</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), App)
threading.Thread(target=server.serve_forever, daemon=True).start()

options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser")
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=720,900",
                 f"--lang={arguments.language}"]:
    options.add_argument(argument)
options.add_experimental_option("prefs", {"intl.accept_languages": arguments.language})
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
if plan.get("phone"):
    # A phone's screen (a headless window is at least 500 pixels wide): DevTools' emulation.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
seen = {"pages": [], "landed": [], "console": []}
wait = WebDriverWait(driver, 30)


def page(name):
    """Records the page on screen (its heading) and saves its screenshot."""
    heading = wait.until(expected_conditions.presence_of_element_located((By.TAG_NAME, "h1"))).text
    seen["pages"].append({"name": name, "heading": heading,
                          "lang": driver.find_element(By.TAG_NAME, "html").get_attribute("lang")})
    driver.save_screenshot(f"{arguments.shots}/oidc-{arguments.name}-{arguments.language}-{len(seen['pages'])}-{name}.png")


def present(element_id):
    try:
        return driver.find_element(By.ID, element_id)
    except NoSuchElementException:
        return None


def click(element_id):
    """Clicks the element once the page has loaded and waits for the next page. A node the
    browser replaced between finding and clicking it (a loaded machine's page still settling)
    is found again."""
    for attempt in range(5):
        try:
            wait.until(lambda driver: driver.execute_script("return document.readyState") == "complete")
            old = driver.find_element(By.TAG_NAME, "html")
            wait.until(expected_conditions.element_to_be_clickable((By.ID, element_id))).click()
            break
        except (StaleElementReferenceException, WebDriverException) as error:
            replaced = isinstance(error, StaleElementReferenceException) or "does not belong to the document" in str(error)
            if attempt == 4 or not replaced:
                raise
            time.sleep(0.2)
    wait.until(gone(old))



def land():
    """Waits until the browser is back at the app; records where."""
    wait.until(lambda driver: driver.current_url.startswith(app))
    page("app")
    seen["landed"].append(driver.current_url)


REGISTER = """
const [token, done] = arguments;
(async () => {
  const headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"};
  const options = await fetch("/webauthn/register/options", {method: "POST", headers, body: "{}"});
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(await options.json());
  const credential = await navigator.credentials.create({publicKey});
  const registered = await fetch("/webauthn/register", {method: "POST", headers,
    body: JSON.stringify({credential: credential.toJSON(), name: "Chromium"})});
  done(registered.status);
})().catch((error) => done(String(error)));
"""

try:
    if "refused" in plan:
        driver.get(plan["refused"])
        page("refused")
        seen["refused_detail"] = driver.find_element(By.ID, "detail").text
    if "passkey" in plan:
        authenticator = VirtualAuthenticatorOptions()
        authenticator.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
        authenticator.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
        authenticator.has_resident_key = True
        authenticator.has_user_verification = True
        authenticator.is_user_verified = True
        driver.add_virtual_authenticator(authenticator)
        driver.get(plan["passkey"]["page"])
        driver.set_script_timeout(30)
        seen["registered"] = driver.execute_async_script(REGISTER, plan["passkey"]["access_token"])
        if plan["passkey"]["mode"] == "button":
            driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
                "source": "PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);"})
    driver.get(plan["authorize"])
    if plan.get("passkey", {}).get("mode") == "autofill":
        # The page's waiting request is answered at once: it goes on by itself.
        wait.until(lambda driver: "/authorize/resume" in driver.current_url)
        seen["resumed"] = True
    else:
        page("sign-in")
        seen["autocomplete"] = {field: driver.find_element(By.ID, field).get_attribute("autocomplete")
                                for field in ["username", "password"]}
    if plan.get("passkey", {}).get("mode") == "button":
        wait.until(lambda driver: driver.find_element(By.ID, "passkey").is_displayed())
        seen["conditional_mediation"] = driver.find_element(By.TAG_NAME, "html").get_attribute("data-conditional-mediation")
        click("passkey")
    elif "passkey" in plan:
        pass
    elif "provider" in plan:
        seen["button"] = driver.find_element(By.ID, plan["provider"]["button"]).text
        click(plan["provider"]["button"])
        if "username" in plan["provider"]:
            seen["provider_page"] = driver.current_url
            page("provider-sign-in")
            driver.find_element(By.ID, "username").send_keys(plan["provider"]["username"])
            driver.find_element(By.ID, "password").send_keys(plan["provider"]["password"])
            click("sign-in")
    else:
        driver.find_element(By.ID, "username").send_keys(plan["username"])
        driver.find_element(By.ID, "password").send_keys(plan["password"])
        click("sign-in")
    if present("code"):
        page("second-factor")
        seen["autocomplete"]["code"] = driver.find_element(By.ID, "code").get_attribute("autocomplete")
        if "recovery_code" in plan:
            driver.find_element(By.ID, "recovery-code").send_keys(plan["recovery_code"])
            click("use-recovery-code")
        else:
            driver.find_element(By.ID, "code").send_keys(plan["code"])
            click("verify")
    if present("allow"):
        page("consent")
        seen["scopes"] = [item.get_attribute("data-scope") for item in driver.find_elements(By.CSS_SELECTOR, "#scopes li")]
        click(plan.get("consent", "allow"))
    land()
    if "token_endpoint" in plan:
        query = urllib.parse.parse_qs(urllib.parse.urlparse(driver.current_url).query)
        form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": query["code"][0],
                                       "redirect_uri": driver.current_url.split("?")[0], "client_id": plan["client_id"],
                                       "code_verifier": plan["code_verifier"]}).encode()
        with urllib.request.urlopen(urllib.request.Request(plan["token_endpoint"], data=form)) as response:
            seen["tokens"] = json.loads(response.read())
    for url in plan.get("then", []):
        driver.get(url.replace("{id_token}", seen.get("tokens", {}).get("id_token", "")))
        if present("sign-out"):
            page("sign-out")
            click("sign-out")
        elif present("sign-in"):
            page("sign-in-again")
            seen["landed"].append("sign-in page")
            continue
        land()
    seen["console"] = [entry["message"] for entry in driver.get_log("browser")]
except Exception:
    # Where the browser was stuck, for the test's report.
    shown = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "h1, .error, .notice")]
    print(f"stuck at {driver.current_url}: {shown}", file=sys.stderr)
    print("console:", [entry["message"] for entry in driver.get_log("browser")], file=sys.stderr)
    raise
finally:
    driver.quit()
    server.shutdown()
print(json.dumps(seen, ensure_ascii=False))
