-- Upstream identity providers (`authd provider add NAME …`): an OpenID provider found through
-- its discovery document, Apple or Google. `client_ids` are the audiences its ID tokens may
-- name (the first is the one authd signs in with in the browser; an iOS app's bundle id may
-- be another); `metadata` is the discovery document as fetched. The client secret (and
-- Apple's private key) are sealed under the KEK, bound to the provider's name.
CREATE TABLE identity_providers (
    name text PRIMARY KEY,
    kind text NOT NULL CONSTRAINT identity_providers_kind CHECK (kind IN ('oidc', 'apple', 'google')),
    issuer text NOT NULL,
    client_ids text[] NOT NULL,
    sealed_client_secret bytea,
    apple_team_id text,
    apple_key_id text,
    sealed_apple_private_key bytea,
    scopes text[] NOT NULL,
    create_accounts boolean NOT NULL DEFAULT false,
    metadata jsonb NOT NULL,
    created_at timestamptz NOT NULL
);
-- An identity is (provider, sub), never an email address. Removing a provider unlinks its
-- identities; deleting an account removes its own.
CREATE TABLE identities (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider text NOT NULL REFERENCES identity_providers (name) ON DELETE CASCADE,
    subject text NOT NULL,
    email text,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL,
    CONSTRAINT identities_provider_subject UNIQUE (provider, subject)
);
CREATE INDEX identities_user_id ON identities (user_id);
-- Accounts made by a provider sign-in (or an emailed code) have no password of their own:
-- their hash is of a random secret nobody holds, and this says so (a password set later, by
-- a reset, makes it true).
ALTER TABLE users ADD COLUMN has_password boolean NOT NULL DEFAULT true;
-- ID tokens taken at POST /login/id-token, by digest, until they expire: each signs in once.
CREATE TABLE used_id_tokens (
    digest bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
-- A provider sign-in whose verified email is an existing account's, waiting for that
-- account's owner to prove it and confirm the link (POST /me/identities with the link_token).
CREATE TABLE pending_identity_links (
    token_hash text PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider text NOT NULL REFERENCES identity_providers (name) ON DELETE CASCADE,
    subject text NOT NULL,
    email text,
    expires_at timestamptz NOT NULL
);
