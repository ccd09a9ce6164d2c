-- TOTP (RFC 6238): one authenticator app per account. The key is sealed (AES-GCM under a
-- key derived from the KEK, bound to the account). A row with no confirmed_at is an
-- enrolment waiting for its first code; last_used_step is the time step of the last code
-- accepted, so a code (or an earlier one) is accepted once.
CREATE TABLE totp_factors (
    user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    sealed_secret bytea NOT NULL,
    created_at timestamptz NOT NULL,
    confirmed_at timestamptz,
    last_used_step bigint
);

-- Recovery codes, given once when TOTP is turned on, stored only as their SHA-256; each
-- works once. Turning TOTP off deletes them.
CREATE TABLE recovery_codes (
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash text NOT NULL,
    used_at timestamptz,
    PRIMARY KEY (user_id, code_hash)
);

-- Short-lived, single-use login challenges, stored only as the SHA-256 of what the client
-- holds: the mfa_token a right password earns when a second factor is on (bound to the
-- password hash it was checked against, and allowed a few wrong codes).
CREATE TABLE login_challenges (
    token_hash text PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('second_factor')),
    user_id uuid REFERENCES users (id) ON DELETE CASCADE,
    password_hash text,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    attempts_left integer NOT NULL,
    used_at timestamptz
);
CREATE INDEX login_challenges_expires_at ON login_challenges (expires_at);
CREATE INDEX login_challenges_user_id ON login_challenges (user_id);
