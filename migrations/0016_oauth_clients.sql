-- Relying parties (`authd client add NAME`): resource servers that introspect and revoke
-- tokens and get tokens of their own (client_credentials). The secret is 256 random bits,
-- stored only as its SHA-256; audiences are the `aud` of the tokens the client gets.
CREATE TABLE oauth_clients (
    id text PRIMARY KEY,
    secret_hash text NOT NULL,
    audiences text[] NOT NULL,
    created_at timestamptz NOT NULL
);
