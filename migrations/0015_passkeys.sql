-- Passkeys (WebAuthn): an account's user handle is random (never its name or id, which an
-- authenticator would otherwise keep), made at its first registration. A credential is
-- its id (unique across accounts), its COSE public key and what its authenticator said;
-- nothing here is secret.
ALTER TABLE users ADD COLUMN passkey_user_handle bytea UNIQUE;

CREATE TABLE passkeys (
    id bytea PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    public_key bytea NOT NULL,
    algorithm integer NOT NULL,
    sign_count bigint NOT NULL,
    backup_eligible boolean NOT NULL,
    backed_up boolean NOT NULL,
    transports text[] NOT NULL,
    aaguid uuid NOT NULL,
    attestation_format text NOT NULL,
    name text NOT NULL,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz
);
CREATE INDEX passkeys_user_id ON passkeys (user_id);

-- Registration and authentication challenges (the SHA-256 of the base64url challenge)
-- live beside the second factor's mfa_tokens.
ALTER TABLE login_challenges DROP CONSTRAINT login_challenges_kind_check;
ALTER TABLE login_challenges ADD CONSTRAINT login_challenges_kind_check
    CHECK (kind IN ('second_factor', 'passkey_registration', 'passkey_authentication'));
