"""A resource server that trusts authd's tokens, written with Authlib.

It learns everything from authd's metadata (RFC 8414): the issuer, the JWKS and the
introspection endpoint. It protects two routes:

  GET /orders/jwt           validates the access token itself through the JWKS (RFC 9068):
                            signature, issuer, audience, expiry; no call to authd per request.
  GET /orders/introspected  asks authd whether the token is live (RFC 7662), so a token
                            whose session was revoked or whose account was disabled is refused
                            before it expires.

Run it against an authd started with `--public-url URL --audience AUDIENCE`, with a client
made by `authd client add NAME`:

    AUTHLIB_INSECURE_TRANSPORT=1 python resource_server.py http://127.0.0.1:8080 \
        https://orders.example.com NAME SECRET 9000
"""

import json
import sys
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2 import ResourceProtector
from authlib.oauth2.rfc6749.errors import OAuth2Error
from authlib.oauth2.rfc7662 import IntrospectTokenValidator
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata
from authlib.oauth2.rfc6750.errors import InvalidTokenError
from authlib.oauth2.rfc9068 import JWTBearerTokenValidator
from authlib.oauth2.rfc9068.claims import JWTAccessTokenClaims
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet


# Said once per token otherwise: the choice is explained at AuthdJWTValidator.
warnings.filterwarnings("ignore", message="EdDSA is deprecated")


def discover(authd_url):
    """authd's metadata, read and checked as RFC 8414 says (the https rule aside: a local test)."""
    metadata = AuthorizationServerMetadata(
        requests.get(authd_url.rstrip("/") + "/.well-known/oauth-authorization-server", timeout=10).json()
    )
    for check in (
        "validate_jwks_uri",
        "validate_token_endpoint",
        "validate_grant_types_supported",
        "validate_token_endpoint_auth_methods_supported",
        "validate_introspection_endpoint",
        "validate_introspection_endpoint_auth_methods_supported",
        "validate_revocation_endpoint",
        "validate_revocation_endpoint_auth_methods_supported",
    ):
        getattr(metadata, check)()
    return metadata


class AuthdJWTValidator(JWTBearerTokenValidator):
    """RFC 9068 validation with the keys at the metadata's jwks_uri, cached for a minute.

    Authlib decodes with joserfc's recommended algorithms, which leave out EdDSA since
    RFC 9864 named it deprecated; this validator allows exactly the algorithms authd's
    metadata names (access_token_signing_alg_values_supported), and checks the claims as
    Authlib's RFC 9068 validator does (iss, aud, exp, sub, client_id, iat, jti; typ at+jwt).
    """

    def __init__(self, metadata, audience):
        super().__init__(issuer=metadata["issuer"], resource_server=audience)
        self.jwks_uri = metadata["jwks_uri"]
        self.algorithms = metadata["access_token_signing_alg_values_supported"]
        self.cached = (0.0, None)

    def authenticate_token(self, token_string):
        options = {
            "iss": {"essential": True, "validate": self.validate_iss},
            "exp": {"essential": True},
            "aud": {"essential": True, "value": self.resource_server},
            "sub": {"essential": True},
            "client_id": {"essential": True},
            "iat": {"essential": True},
            "jti": {"essential": True},
        }
        try:
            token = jwt.decode(token_string, KeySet.import_key_set(self.get_jwks()), algorithms=self.algorithms)
        except JoseError as error:
            raise InvalidTokenError(realm=self.realm) from error
        return JWTAccessTokenClaims(token.claims, token.header, options)

    def get_jwks(self):
        fetched_at, jwks = self.cached
        if jwks is None or time.monotonic() - fetched_at > 60:
            jwks = requests.get(self.jwks_uri, timeout=10).json()
            self.cached = (time.monotonic(), jwks)
        return jwks


class AuthdIntrospectionValidator(IntrospectTokenValidator):
    """RFC 7662: asks authd, as the registered client, whether the token is live."""

    def __init__(self, metadata, client_id, client_secret):
        super().__init__()
        self.endpoint = metadata["introspection_endpoint"]
        self.session = OAuth2Session(client_id, client_secret)

    def introspect_token(self, token_string):
        response = self.session.introspect_token(self.endpoint, token=token_string, token_type_hint="access_token")
        response.raise_for_status()
        return response.json()


def make_server(authd_url, audience, client_id, client_secret, port=0):
    """The resource server, not yet serving: call serve_forever() (in a thread, say)."""
    metadata = discover(authd_url)
    by_jwt, by_introspection = ResourceProtector(), ResourceProtector()
    by_jwt.register_token_validator(AuthdJWTValidator(metadata, audience))
    by_introspection.register_token_validator(AuthdIntrospectionValidator(metadata, client_id, client_secret))
    protectors = {"/orders/jwt": by_jwt, "/orders/introspected": by_introspection}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            protector = protectors.get(self.path)
            if protector is None:
                return self.answer(404, {"error": "not_found"})
            try:
                token = protector.validate_request(None, self)
            except OAuth2Error as error:
                return self.answer(401, {"error": error.error})
            self.answer(200, {"sub": token["sub"], "client_id": token.get("client_id"), "username": token.get("username")})

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


if __name__ == "__main__":
    authd_url, audience, client_id, client_secret, port = sys.argv[1:6]
    server = make_server(authd_url, audience, client_id, client_secret, int(port))
    print(f"resource server on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
