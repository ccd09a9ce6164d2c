-- Sessions of OpenID Connect clients (issue of a code at /authorize, redeemed at
-- /oauth/token): a session says which client it was issued to, so its refresh tokens work
-- for that client only (RFC 6749 §6) and never at authd's own refresh route; and which
-- browser sign-in started it, so signing out there (RP-Initiated Logout) ends it too. A
-- code carries that browser sign-in to the session its redemption starts. Each client picks
-- the algorithm of its ID tokens (RS256 unless it says otherwise). A client's session keeps
-- the scopes granted, which its refreshed access tokens carry again.
ALTER TABLE refresh_families
    ADD COLUMN client_id text REFERENCES oauth_clients (id) ON DELETE CASCADE,
    ADD COLUMN browser_session uuid,
    ADD COLUMN scopes text[];
CREATE INDEX refresh_families_browser_session ON refresh_families (browser_session) WHERE browser_session IS NOT NULL;
ALTER TABLE authorization_codes ADD COLUMN browser_session uuid;
ALTER TABLE oauth_clients ADD COLUMN id_token_alg text NOT NULL DEFAULT 'RS256'
    CONSTRAINT oauth_clients_id_token_alg CHECK (id_token_alg IN ('RS256', 'ES256', 'EdDSA'));
-- The rotation now names the client the refresh is for; its body is in functions/.
DROP FUNCTION rotate_refresh_token(text, text, timestamptz, timestamptz);
-- What a user allowed a third-party client (the consent page), asked again only for more
-- scopes or with prompt=consent.
CREATE TABLE consents (
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id text NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    scopes text[] NOT NULL,
    granted_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, client_id)
);
