-- Keys of several algorithms: Ed25519 signs access tokens; RS256, ES256 and EdDSA sign
-- ID tokens (OpenID Connect Core §3.1.3.7 makes RS256 the one every client accepts). Each
-- algorithm keeps its own current and published keys. Every key so far is Ed25519.
ALTER TABLE signing_keys ADD COLUMN algorithm text NOT NULL DEFAULT 'EdDSA'
    CONSTRAINT signing_keys_algorithm CHECK (algorithm IN ('EdDSA', 'RS256', 'ES256'));
