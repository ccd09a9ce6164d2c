#!/usr/bin/env python3
"""The conformance pack's sign-in at oidc-provider-mock (contract.yaml's state 'a code was
issued'): posts its authorization form with CONFORMANCE_USERNAME as the subject, and prints
the parameters of the redirect back to the client as JSON. Python's standard library only."""

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


url = sys.argv[1]
data = urllib.parse.urlencode({"sub": os.environ["CONFORMANCE_USERNAME"]}).encode()
try:
    response = urllib.request.build_opener(NoRedirects).open(urllib.request.Request(url, data=data), timeout=30)
except urllib.error.HTTPError as answer:
    response = answer
if response.status not in (302, 303):
    sys.exit(f"the provider did not send the browser back to the client: {response.status} {response.read()[:300]}")
query = urllib.parse.parse_qs(urllib.parse.urlsplit(response.headers["Location"]).query)
print(json.dumps({name: values[0] for name, values in query.items()}))
