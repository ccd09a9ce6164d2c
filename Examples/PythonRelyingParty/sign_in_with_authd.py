"""An app that signs its users in with authd through OpenID Connect, written with Authlib as
its documentation shows, unchanged: discovery, the authorization code flow with PKCE, the ID
token checked by Authlib's own OpenID Connect claims (iss, aud, exp, nonce, at_hash), the
userinfo endpoint, a refresh, and logout. scripts/relying-party-check runs it against a live
authd; it exits non-zero on the first broken expectation.

The browser's part (authd's sign-in and consent pages) is played by authd_pages.Browser,
which reads the pages' forms as a browser would, so the check needs no browser; Chromium
plays it in the test suite (Tests/authdTests/SignInBrowserTests.swift).

Environment: AUTHD_URL; PUBLIC_CLIENT_ID (a --public client), WEB_CLIENT_ID and
WEB_CLIENT_SECRET (a confidential one), both with the redirect URI REDIRECT_URI and the
post-logout redirect URI POST_LOGOUT_URI; USERNAME, PASSWORD.
"""

import os
import re
import sys
import urllib.parse

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken

from authd_pages import Browser

jwt = JsonWebToken(["RS256", "ES256", "EdDSA"])
env = os.environ
authd = env["AUTHD_URL"].rstrip("/")
checks = 0


def expect(condition, what):
    global checks
    if not condition:
        sys.exit(f"FAILED: {what}")
    checks += 1
    print(f"ok {checks} - {what}")


def validated(client, token, nonce, metadata):
    """The ID token, checked as Authlib's OpenID Connect support checks it (with the JWKS
    fetched again for a key it has not seen, as Authlib's web integrations do)."""
    global jwks
    try:
        return checked(client, token, nonce, metadata)
    except ValueError:
        jwks = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())
        return checked(client, token, nonce, metadata)


def checked(client, token, nonce, metadata):
    claims = jwt.decode(
        token["id_token"], jwks, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": metadata["issuer"]}},
        claims_params={"nonce": nonce, "client_id": client, "access_token": token["access_token"]})
    claims.validate()
    return claims


# Discovery (OpenID Connect Discovery 1.0 §4): the document at the issuer's well-known URL.
metadata = requests.get(authd + "/.well-known/openid-configuration", timeout=10).json()
expect(metadata["issuer"] == authd, "the issuer is the URL the discovery document is under")
expect("code" in metadata["response_types_supported"] and metadata["code_challenge_methods_supported"] == ["S256"],
       "the code flow with S256 PKCE is offered")
expect("RS256" in metadata["id_token_signing_alg_values_supported"], "RS256, OpenID Connect's default, signs ID tokens")
jwks = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"], timeout=10).json())

# A native app (a public client): PKCE, no secret, as RFC 8252 says.
public = OAuth2Session(env["PUBLIC_CLIENT_ID"], redirect_uri=env["REDIRECT_URI"], scope="openid profile email offline_access",
                       token_endpoint_auth_method="none", code_challenge_method="S256")
verifier = generate_token(48)
nonce = generate_token(20)
url, state = public.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
browser = Browser(authd, env["USERNAME"], env["PASSWORD"], env["REDIRECT_URI"])
callback = browser.sign_in(url)
expect(callback.startswith(env["REDIRECT_URI"]), "authd sends the browser back to the app")
answer = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(callback).query))
expect(answer.get("state") == state, "the answer carries the request's state")
expect(answer.get("iss") == authd, "... and authd's iss (RFC 9207: no mix-up with another provider)")
token = public.fetch_token(metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier)
claims = validated(env["PUBLIC_CLIENT_ID"], token, nonce, metadata)
expect(claims["sub"] and claims["amr"] == ["pwd"] and "auth_time" in claims, "Authlib validates the ID token: iss, aud, exp, nonce, at_hash")
info = public.get(metadata["userinfo_endpoint"]).json()
expect(info["sub"] == claims["sub"] and info["preferred_username"] == env["USERNAME"], "userinfo names the same user")
refreshed = public.refresh_token(metadata["token_endpoint"])
expect(refreshed["refresh_token"] != token["refresh_token"], "Authlib refreshes the app's session (rotation)")
expect(public.get(metadata["userinfo_endpoint"]).status_code == 200, "the refreshed access token reads userinfo")

# The same code twice: refused, and the session it started ends (RFC 6749 §4.1.2).
try:
    public.fetch_token(metadata["token_endpoint"], authorization_response=callback, code_verifier=verifier)
    expect(False, "a replayed code is refused")
except Exception as error:
    expect("invalid_grant" in str(error), "a replayed code is invalid_grant")
expect(public.get(metadata["userinfo_endpoint"]).status_code == 401, "... and the session its first use started is over")

# An answer without the state it was sent with is refused by the client (CSRF, RFC 6749 §10.12).
url, state = public.create_authorization_url(metadata["authorization_endpoint"], code_verifier=generate_token(48), nonce=generate_token(20))
stripped = re.sub(r"state=[^&]*&?", "", browser.sign_in(url))
try:
    public.fetch_token(metadata["token_endpoint"], authorization_response=stripped, code_verifier=verifier, state=state)
    expect(False, "Authlib refuses an answer without its state")
except Exception as error:
    expect("state" in str(error).lower() or "csrf" in str(error).lower(), "Authlib refuses an answer without its state")

# A web app (a confidential client, client_secret_basic), asked for consent, ID tokens as registered.
web = OAuth2Session(env["WEB_CLIENT_ID"], env["WEB_CLIENT_SECRET"], redirect_uri=env["REDIRECT_URI"], scope="openid email")
nonce = generate_token(20)
url, state = web.create_authorization_url(metadata["authorization_endpoint"], nonce=nonce)
callback = browser.sign_in(url)
expect(callback.startswith(env["REDIRECT_URI"]), "authd sends the browser back to the app")
token = web.fetch_token(metadata["token_endpoint"], authorization_response=callback)
claims = validated(env["WEB_CLIENT_ID"], token, nonce, metadata)
expect("refresh_token" not in token, "no refresh token without offline_access for a third-party app (OpenID Connect Core §11)")
expect("preferred_username" not in web.get(metadata["userinfo_endpoint"]).json(), "userinfo gives what the scopes allow, no more")

# Logout (RP-Initiated Logout 1.0): back to the app with its state; the sessions end.
logout = metadata["end_session_endpoint"] + "?" + urllib.parse.urlencode(
    {"id_token_hint": token["id_token"], "post_logout_redirect_uri": env["POST_LOGOUT_URI"], "state": "bye"})
out = browser.open(logout)
expect(out.status_code == 303 and out.headers["Location"] == env["POST_LOGOUT_URI"] + "?state=bye", "logout sends the browser back with its state")
expect(web.get(metadata["userinfo_endpoint"]).status_code == 401, "the app's session ended with the browser's sign-in")
evil = browser.open(metadata["end_session_endpoint"] + "?" + urllib.parse.urlencode(
    {"id_token_hint": token["id_token"], "post_logout_redirect_uri": "https://evil.example/"}))
expect(evil.status_code == 400 and "Location" not in evil.headers, "an unregistered post_logout_redirect_uri is no redirect")

print(f"OpenID Connect check: {checks} expectations held")
