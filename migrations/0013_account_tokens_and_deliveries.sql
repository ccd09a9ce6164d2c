-- Email addresses: email keeps the address as given, email_key its lower-cased form,
-- unique among accounts that have one. email_verified_at is set by POST /email/verify.
ALTER TABLE users
    ADD COLUMN email text,
    ADD COLUMN email_key text,
    ADD COLUMN email_verified_at timestamptz;
CREATE UNIQUE INDEX users_email_key_unique ON users (email_key) WHERE email_key IS NOT NULL;

-- Single-use tokens sent out of band (password reset, email verification), stored only as
-- their SHA-256. A token dies when used, when it expires, and with its account.
CREATE TABLE account_tokens (
    token_hash text PRIMARY KEY,
    purpose text NOT NULL CHECK (purpose IN ('password_reset', 'email_verification')),
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email text,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at timestamptz
);
CREATE INDEX account_tokens_user_id ON account_tokens (user_id);
CREATE INDEX account_tokens_expires_at ON account_tokens (expires_at);

-- The outbox: a message to the delivery URL, written by the statement that issues its
-- token and sent afterwards by any instance, at least once. The token is kept sealed
-- (AES-GCM under a key derived from the KEK) until then, and erased once the message is
-- delivered or abandoned; the rest of the body is read from the account when it is sent.
-- A deleted account's messages go with it.
CREATE TABLE deliveries (
    id bigserial PRIMARY KEY,
    kind text NOT NULL,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email text,
    sealed_token bytea,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    delivered_at timestamptz,
    abandoned_at timestamptz,
    last_error text
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE delivered_at IS NULL AND abandoned_at IS NULL;
CREATE INDEX deliveries_created_at ON deliveries (created_at);
CREATE INDEX deliveries_user_id ON deliveries (user_id);
