-- OpenID Connect clients (`authd client add NAME --redirect-uri …`): where /authorize may send
-- the browser back and /logout may after it, whether the client is public (a native or browser
-- app: no secret, its secret_hash empty, PKCE required), whether it is the operator's own (no
-- consent page), and the scopes it may ask for. Resource servers registered before have none of
-- these and keep working.
ALTER TABLE oauth_clients
    ADD COLUMN redirect_uris text[] NOT NULL DEFAULT '{}',
    ADD COLUMN post_logout_redirect_uris text[] NOT NULL DEFAULT '{}',
    ADD COLUMN public boolean NOT NULL DEFAULT false,
    ADD COLUMN first_party boolean NOT NULL DEFAULT false,
    ADD COLUMN scopes text[] NOT NULL DEFAULT '{}';
