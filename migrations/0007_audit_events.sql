-- Security events (logins, refreshes, reuse, logouts, account and key changes). Never a
-- secret: ids, the username key, the client address, the request id and a short detail.
CREATE TABLE audit_events (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL,
    kind text NOT NULL,
    user_id uuid,
    username_key text,
    client_address text,
    request_id text,
    detail text
);
CREATE INDEX audit_events_at ON audit_events (at DESC);
CREATE INDEX audit_events_username_key ON audit_events (username_key, at DESC);
CREATE INDEX audit_events_user_id ON audit_events (user_id, at DESC);
