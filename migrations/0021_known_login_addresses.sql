-- The addresses each username logged in from, as the digest of the pair (the same HMAC
-- as the pair's login counter), with the last login's time: a login from one of them is
-- not refused by the username's lockout from every address, which a distributed attacker
-- can run up (it still counts against the pair and the address). Forgotten by retention
-- once the last login is older than the exemption lasts.
CREATE TABLE known_login_addresses (
    subject_digest text PRIMARY KEY,
    last_login_at timestamptz NOT NULL
);
CREATE INDEX known_login_addresses_last_login_at ON known_login_addresses (last_login_at);
