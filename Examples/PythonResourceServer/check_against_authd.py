"""The relying-party check: resource_server.py, a standard OAuth client (Authlib) and a live
authd. scripts/relying-party-check starts authd and runs this; it exits non-zero on the
first broken expectation.

Environment: AUTHD_URL, AUTHD_BIN and AUTHD_DATA (to disable the account with the CLI),
AUDIENCE, CLIENT_ID, CLIENT_SECRET, USERNAME, PASSWORD.
"""

import os
import subprocess
import sys
import threading

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.integrations.base_client.errors import OAuthError

from resource_server import discover, make_server

env = os.environ
authd = env["AUTHD_URL"].rstrip("/")
checks = 0


def expect(condition, what):
    global checks
    if not condition:
        sys.exit(f"FAILED: {what}")
    checks += 1
    print(f"ok {checks} - {what}")


# Discovery: both documents, the same fields, URLs under the public URL, the tokens' issuer.
metadata = discover(authd)
expect(metadata["issuer"] == authd, "the metadata's issuer is --public-url")
openid = requests.get(authd + "/.well-known/openid-configuration", timeout=10).json()
expect(all(openid[name] == value for name, value in metadata.items()), "openid-configuration holds the same fields, and more")
expect(all(metadata[k].startswith(authd + "/") for k in ("jwks_uri", "token_endpoint", "introspection_endpoint", "revocation_endpoint")),
       "every endpoint is under --public-url")

server = make_server(authd, env["AUDIENCE"], env["CLIENT_ID"], env["CLIENT_SECRET"])
threading.Thread(target=server.serve_forever, daemon=True).start()
rs = f"http://127.0.0.1:{server.server_address[1]}"


def call(path, token):
    return requests.get(rs + path, headers={"Authorization": f"Bearer {token}"}, timeout=10)


def login():
    response = requests.post(authd + "/login", json={"username": env["USERNAME"], "password": env["PASSWORD"]}, timeout=30)
    expect(response.status_code == 200, "POST /login gives tokens")
    return response.json()


# A user's token, validated locally through the JWKS and by introspection.
tokens = login()
jwt_answer = call("/orders/jwt", tokens["access_token"])
expect(jwt_answer.status_code == 200, "the JWKS validator accepts a login's access token (RFC 9068: iss, aud, client_id, typ)")
introspected = call("/orders/introspected", tokens["access_token"])
expect(introspected.status_code == 200 and introspected.json()["username"] == env["USERNAME"],
       "introspection says the access token is active, with its username")
expect(introspected.json()["sub"] == jwt_answer.json()["sub"], "both validators name the same subject")
tampered = tokens["access_token"][:-4] + ("AAAA" if not tokens["access_token"].endswith("AAAA") else "BBBB")
expect(call("/orders/jwt", tampered).status_code == 401, "a token with a broken signature is refused by the JWKS validator")
expect(call("/orders/introspected", tampered).status_code == 401, "... and by introspection")

# The refresh_token grant, as a standard client does it: authd's own public client.
first_party = OAuth2Session("authd", token_endpoint_auth_method="none")
refreshed = first_party.refresh_token(metadata["token_endpoint"], refresh_token=tokens["refresh_token"])
expect(refreshed["refresh_token"] != tokens["refresh_token"], "Authlib refreshes at the token endpoint (rotation)")
expect(call("/orders/jwt", refreshed["access_token"]).status_code == 200, "the refreshed access token validates")
try:
    first_party.refresh_token(metadata["token_endpoint"], refresh_token=tokens["refresh_token"])
    expect(False, "a replayed refresh token is refused")
except OAuthError as error:
    expect(error.error == "invalid_grant", "a replayed refresh token is invalid_grant (RFC 6749 §5.2)")
expect(call("/orders/introspected", refreshed["access_token"]).status_code == 401,
       "the replay revoked the family: its access token introspects inactive")

# Revocation (RFC 7009) by the registered client, of a token meant for it (its aud): the
# session ends at once for introspection. A refresh token is meant for authd alone: a client
# not trusted with every token (--trusted-introspector) learns nothing of it and cannot end it.
client = OAuth2Session(env["CLIENT_ID"], env["CLIENT_SECRET"])
tokens = login()
inspect = client.introspect_token(metadata["introspection_endpoint"], token=tokens["refresh_token"], token_type_hint="refresh_token").json()
expect(inspect == {"active": False}, "a refresh token is not shown to a client that is not trusted with every token")
ignored = client.revoke_token(metadata["revocation_endpoint"], token=tokens["refresh_token"], token_type_hint="refresh_token")
expect(ignored.status_code == 200 and call("/orders/introspected", tokens["access_token"]).status_code == 200,
       "nor revoked by it (200, as for an unknown token)")
revoked = client.revoke_token(metadata["revocation_endpoint"], token=tokens["access_token"], token_type_hint="access_token")
expect(revoked.status_code == 200, "revoking an access token meant for the client answers 200")
expect(call("/orders/introspected", tokens["access_token"]).status_code == 401, "after revocation the access token introspects inactive")
expect(call("/orders/jwt", tokens["access_token"]).status_code == 200,
       "a self-contained JWT still validates locally until it expires (introspect to cut it off)")
expect(client.revoke_token(metadata["revocation_endpoint"], token="not-a-token").status_code == 200, "revoking an unknown token answers 200")
wrong = OAuth2Session(env["CLIENT_ID"], "wrong-secret").introspect_token(metadata["introspection_endpoint"], token=tokens["access_token"])
expect(wrong.status_code == 401 and wrong.json()["error"] == "invalid_client", "a wrong client secret is invalid_client")

# The client's own token (client_credentials), with its audience.
own = client.fetch_token(metadata["token_endpoint"], grant_type="client_credentials")
expect("refresh_token" not in own, "client_credentials gives an access token and no refresh token")
answer = call("/orders/jwt", own["access_token"])
expect(answer.status_code == 200 and answer.json()["sub"] == env["CLIENT_ID"], "the client's token validates, its sub the client id")
expect(call("/orders/introspected", own["access_token"]).status_code == 200, "the client's token introspects active")

# A disabled account: its live access token introspects inactive at once.
tokens = login()
expect(call("/orders/introspected", tokens["access_token"]).status_code == 200, "a fresh login's token introspects active")
subprocess.run([env["AUTHD_BIN"], "user", "disable", env["USERNAME"], "--data-dir", env["AUTHD_DATA"], "--log-level", "error"],
               check=True, stdout=subprocess.DEVNULL)
expect(call("/orders/introspected", tokens["access_token"]).status_code == 401, "after the account is disabled its token introspects inactive")

print(f"relying-party check: {checks} expectations held")
