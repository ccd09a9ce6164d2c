-- Accounts. username keeps the NFC form as registered; username_key is its
-- lower-cased form and makes names unique case-insensitively.
CREATE TABLE users (
    id uuid PRIMARY KEY,
    username text NOT NULL,
    username_key text NOT NULL,
    password_hash text NOT NULL,
    disabled_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_username_key_unique UNIQUE (username_key)
);
