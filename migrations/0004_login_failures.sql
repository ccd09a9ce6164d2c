-- Failed-login counters per account and per client address, in fixed windows.
-- Subjects are SHA-256 digests: a password typed as a username is never stored.
CREATE TABLE login_failures (
    scope text NOT NULL,
    subject_digest text NOT NULL,
    failures integer NOT NULL,
    window_start timestamptz NOT NULL,
    PRIMARY KEY (scope, subject_digest)
);
