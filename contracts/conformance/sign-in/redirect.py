"""What both sign-in commands share: requests whose redirects are not followed, and the
redirect back to the client printed as the JSON object of its query's parameters
(`{"code": …, "state": …, "iss": …}`), which the pack's state saves. Python's standard
library only."""

import json
import sys
import urllib.error
import urllib.parse
import urllib.request


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_opener = urllib.request.build_opener(NoRedirects)


def send(request):
    """The answer to `request`, a redirect or an error status included."""
    try:
        return _opener.open(request, timeout=30)
    except urllib.error.HTTPError as answer:
        return answer


def print_redirect_back(status, headers, body, provider):
    """Prints the parameters of the redirect back to the client, or exits saying what came instead."""
    if status not in (302, 303):
        sys.exit(f"{provider} did not send the browser back to the client: {status} {body[:300]}")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(headers["Location"]).query)
    print(json.dumps({name: values[0] for name, values in query.items()}))
