-- The name a provider gave for an identity: Sign in with Apple sends it once, with the first
-- authorization only (the `user` JSON of its form_post), so it is kept from that sign-in.
ALTER TABLE identities ADD COLUMN name text;

-- A sign-in waiting for its link's confirmation keeps what it came with: the name, and the
-- provider's refresh token (sealed, as on an identity). Confirmed, both move to the
-- identity; expired or the account deleted, the token is queued for revocation as an
-- identity's is (queue_provider_revocation, migration 0029).
ALTER TABLE pending_identity_links
    ADD COLUMN name text,
    ADD COLUMN sealed_refresh_token bytea,
    ADD COLUMN refresh_client_id text;
CREATE TRIGGER pending_identity_links_revoke_provider_tokens
    BEFORE DELETE ON pending_identity_links
    FOR EACH ROW EXECUTE FUNCTION queue_provider_revocation();
