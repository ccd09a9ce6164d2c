"""authd's sign-in pages, filled in as a browser would, for the relying-party checks
(sign_in_with_authd.py with Authlib, sign_in_with_oic.py with pyoidc): the browser's part of
the authorization code flow, without a browser (Chromium plays it in the test suite)."""

import html
import re
import urllib.parse

import requests


class Browser:
    """authd's pages, as a browser fills them in: it keeps the session cookie (a `__Host-`,
    `Secure` cookie, which a browser keeps on localhost too and `requests` would not send over
    http), follows authd's own redirects and stops at the app's."""

    def __init__(self, authd, username, password, app):
        self.authd, self.username, self.password, self.app = authd, username, password, app
        self.cookie = None
        self.http = requests.Session()

    def open(self, url, method="GET", data=None):
        while True:
            headers = {"Cookie": self.cookie} if self.cookie else {}
            if method == "POST":
                headers.update({"Origin": self.authd, "Sec-Fetch-Site": "same-origin"})
            response = self.http.request(method, url, data=data, headers=headers, allow_redirects=False, timeout=30)
            if "__Host-authd_browser=" in response.headers.get("Set-Cookie", ""):
                self.cookie = response.headers["Set-Cookie"].split(";")[0]
            location = response.headers.get("Location")
            if response.status_code in (302, 303) and location and location.startswith(self.authd):
                url, method, data = location, "GET", None
                continue
            return response

    def submit(self, page, **fields):
        """Posts the page's form with its anti-forgery token and `fields`."""
        action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', page.text).group(1))
        fields["csrf"] = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
        return self.open(urllib.parse.urljoin(self.authd, action), "POST", fields)


    def sign_in(self, url, consent=True):
        """At `url`: signs in (unless the browser is already), allows (or denies), and returns
        the URL authd sends the browser to, at the app."""
        page = self.open(url)
        if page.status_code == 200 and 'id="sign-in"' in page.text:
            page = self.submit(page, username=self.username, password=self.password)
        if page.status_code == 200 and 'name="decision"' in page.text:
            page = self.submit(page, decision="allow" if consent else "deny")
        if page.status_code != 303 or not page.headers["Location"].startswith(self.app):
            raise AssertionError(f"authd did not send the browser back to the app: {page.status_code} {page.text[:200]}")
        return page.headers["Location"]
