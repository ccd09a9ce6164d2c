-- Refresh tokens, stored only as SHA-256 hex digests, grouped in rotation families.
CREATE TABLE refresh_tokens (
    token_hash text PRIMARY KEY,
    family_id uuid NOT NULL,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    used_at timestamptz,
    revoked_at timestamptz
);
CREATE INDEX refresh_tokens_family_id ON refresh_tokens (family_id);
