#!/usr/bin/env python3
"""The conformance pack's sign-in at authd (contract.yaml's state 'a code was issued'): opens
the authorization URL given, signs the test user in on authd's page with
CONFORMANCE_USERNAME and CONFORMANCE_PASSWORD, allows the client if authd asks, and prints
the parameters of the redirect back to the client as JSON ({"code": …, "state": …, "iss": …}).
Python's standard library only."""

import html
import os
import re
import sys
import urllib.parse
import urllib.request

from redirect import print_redirect_back, send

cookie = None


def open_page(url, fields=None):
    """A GET, or a POST of `fields`, with authd's browser cookie (a __Host- cookie a browser
    keeps on localhost too); returns (status, headers, text)."""
    global cookie
    origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(url))
    headers = {"Cookie": cookie} if cookie else {}
    data = None
    if fields is not None:
        data = urllib.parse.urlencode(fields).encode()
        headers.update({"Origin": origin, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/x-www-form-urlencoded"})
    response = send(urllib.request.Request(url, data=data, headers=headers))
    for value in response.headers.get_all("Set-Cookie") or []:
        if value.startswith("__Host-authd_browser="):
            cookie = value.split(";")[0]
    return response.status, response.headers, response.read().decode()


def submit(url, page, **fields):
    """Posts the page's form with its anti-forgery token and `fields`."""
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', page).group(1))
    fields["csrf"] = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    return open_page(urllib.parse.urljoin(url, action), fields)


def main():
    url = sys.argv[1]
    status, headers, page = open_page(url)
    if status == 200 and 'name="password"' in page:
        status, headers, page = submit(url, page, username=os.environ["CONFORMANCE_USERNAME"], password=os.environ["CONFORMANCE_PASSWORD"])
    if status == 200 and 'name="decision"' in page:
        status, headers, page = submit(url, page, decision="allow")
    print_redirect_back(status, headers, page, "authd")


main()
