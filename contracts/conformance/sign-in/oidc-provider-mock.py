#!/usr/bin/env python3
"""The conformance pack's sign-in at oidc-provider-mock (contract.yaml's state 'a code was
issued'): posts its authorization form with CONFORMANCE_USERNAME as the subject, and prints
the parameters of the redirect back to the client as JSON. Python's standard library only."""

import os
import sys
import urllib.parse
import urllib.request

from redirect import print_redirect_back, send

data = urllib.parse.urlencode({"sub": os.environ["CONFORMANCE_USERNAME"]}).encode()
response = send(urllib.request.Request(sys.argv[1], data=data))
print_redirect_back(response.status, response.headers, response.read().decode(errors="replace"), "the provider")
