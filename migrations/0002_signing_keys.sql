-- Ed25519 keys that sign access tokens. The newest is current; the one before it
-- stays published in the JWKS so tokens it signed keep verifying.
CREATE TABLE signing_keys (
    kid text PRIMARY KEY,
    private_key bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
