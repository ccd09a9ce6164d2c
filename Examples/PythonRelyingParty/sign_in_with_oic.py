"""A second relying-party library against authd, unchanged: pyoidc (`oic` on PyPI), as its
documentation shows — discovery (which checks the issuer is the URL it was read from), the
client's registration given by hand (authd's clients are registered by its operator), the
code flow with PKCE, the ID token (its signature with the JWKS, iss, aud, nonce) and userinfo.
scripts/relying-party-check runs it against a live authd; it exits non-zero on the first
broken expectation.

Environment: AUTHD_URL; WEB_CLIENT_ID and WEB_CLIENT_SECRET (a confidential client with the
redirect URI REDIRECT_URI); USERNAME, PASSWORD.
"""

import os
import sys
import urllib.parse

from oic import rndstr
from oic.oic import Client
from oic.oic.message import AuthorizationResponse, OpenIDSchema, RegistrationResponse
from oic.utils.authn.client import CLIENT_AUTHN_METHOD

from authd_pages import Browser

env = os.environ
authd = env["AUTHD_URL"].rstrip("/")
checks = 0


def expect(condition, what):
    global checks
    if not condition:
        sys.exit(f"FAILED: {what}")
    checks += 1
    print(f"ok {checks} - {what}")


client = Client(client_authn_method=CLIENT_AUTHN_METHOD)
provider = client.provider_config(authd)
expect(provider["issuer"] == authd, "pyoidc reads the discovery document (its issuer is the URL it was read from)")
client.store_registration_info(RegistrationResponse(
    client_id=env["WEB_CLIENT_ID"], client_secret=env["WEB_CLIENT_SECRET"], redirect_uris=[env["REDIRECT_URI"]],
    token_endpoint_auth_method="client_secret_basic"))

state, nonce = rndstr(32), rndstr(32)
challenge, verifier = client.add_code_challenge()
request = client.construct_AuthorizationRequest(request_args={
    "client_id": client.client_id, "response_type": "code", "scope": ["openid", "email"], "nonce": nonce,
    "redirect_uri": env["REDIRECT_URI"], "state": state, **challenge})
browser = Browser(authd, env["USERNAME"], env["PASSWORD"], env["REDIRECT_URI"])
callback = browser.sign_in(request.request(client.authorization_endpoint))
answer = client.parse_response(AuthorizationResponse, info=urllib.parse.urlparse(callback).query, sformat="urlencoded")
expect(answer["state"] == state, "the answer carries the request's state")

tokens = client.do_access_token_request(
    state=state, request_args={"code": answer["code"], "redirect_uri": env["REDIRECT_URI"], "code_verifier": verifier},
    authn_method="client_secret_basic")
id_token = tokens["id_token"]  # verified on parsing: signature (the JWKS), iss, aud, exp
expect(id_token["iss"] == authd and env["WEB_CLIENT_ID"] in id_token["aud"], "pyoidc verifies the ID token's signature, issuer and audience")
expect(id_token["nonce"] == nonce, "the ID token carries the request's nonce")
info = client.do_user_info_request(state=state)
expect(isinstance(info, OpenIDSchema) and info["sub"] == id_token["sub"], "userinfo names the ID token's subject")

print(f"pyoidc check: {checks} expectations held")
