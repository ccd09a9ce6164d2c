-- A relying party's own client_credentials tokens that it revoked (RFC 7009 §2): by jti,
-- until they expire, for introspection to answer them inactive.
CREATE TABLE revoked_client_tokens (
    jti text PRIMARY KEY,
    client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL
);
CREATE INDEX revoked_client_tokens_expiry ON revoked_client_tokens (expires_at);
