-- A provider's refresh token (Sign in with Apple's, from an authorization code) is kept on its
-- identity, sealed under the KEK (bound to the provider and the subject), with the client id
-- it was issued to. It is revoked at the provider when the identity goes (unlinked, the
-- account deleted, the provider removed) or a newer token replaces it: the trigger queues it
-- in provider_revocations, in the same transaction as the delete, and every authd instance
-- sends what is queued (RFC 7009), retried until it is revoked or given up.
ALTER TABLE identities
    ADD COLUMN sealed_refresh_token bytea,
    ADD COLUMN refresh_client_id text;

CREATE TABLE provider_revocations (
    id bigserial PRIMARY KEY,
    provider text NOT NULL,
    subject text NOT NULL,
    client_id text NOT NULL,
    user_id uuid,
    sealed_token bytea,
    created_at timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    revoked_at timestamptz,
    abandoned_at timestamptz,
    last_error text
);
CREATE INDEX provider_revocations_due ON provider_revocations (next_attempt_at) WHERE revoked_at IS NULL AND abandoned_at IS NULL;
CREATE INDEX provider_revocations_created_at ON provider_revocations (created_at);

CREATE FUNCTION queue_provider_revocation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.sealed_refresh_token IS NOT NULL
       AND (TG_OP = 'DELETE' OR NEW.sealed_refresh_token IS DISTINCT FROM OLD.sealed_refresh_token) THEN
        -- Due at once (whatever the clock authd runs on).
        INSERT INTO provider_revocations (provider, subject, client_id, user_id, sealed_token, created_at, next_attempt_at)
        VALUES (OLD.provider, OLD.subject, OLD.refresh_client_id, OLD.user_id, OLD.sealed_refresh_token, now(), '-infinity');
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER identities_revoke_provider_tokens
    BEFORE DELETE OR UPDATE OF sealed_refresh_token ON identities
    FOR EACH ROW EXECUTE FUNCTION queue_provider_revocation();
