-- Authorization codes of /authorize (RFC 6749 §4.1.2): the SHA-256 of the code only, good once
-- for 60 seconds, bound to the client, the redirect URI and the PKCE challenge. used_at marks a
-- redeemed one; session_id the session its redemption started, which a replay ends.
CREATE TABLE authorization_codes (
    code_hash text PRIMARY KEY,
    client_id text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
    user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    redirect_uri text NOT NULL,
    scopes text[] NOT NULL,
    nonce text,
    code_challenge text,
    auth_time timestamptz NOT NULL,
    methods text[] NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    used_at timestamptz,
    session_id uuid
);
CREATE INDEX authorization_codes_expires_at ON authorization_codes (expires_at);
