-- A session: the family of refresh tokens descended from one login. Its row is what a
-- revocation and a rotation both lock, so they serialise: a rotation that comes after a
-- revocation sees it, and one that came first has committed its successor before the
-- revocation reads the family. expires_at is the session's absolute end (serve's
-- --session-max-age), which no rotation extends.
CREATE TABLE refresh_families (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX refresh_families_user_id ON refresh_families (user_id);

-- The sessions that exist already: begun at their first token, ended 90 days later (the
-- default) or when their newest token expires, whichever is later; revoked when every
-- token of theirs is.
INSERT INTO refresh_families (id, user_id, created_at, expires_at, revoked_at)
SELECT family_id, min(user_id::text)::uuid, min(created_at),
       greatest(min(created_at) + interval '90 days', max(expires_at)),
       CASE WHEN bool_and(revoked_at IS NOT NULL) THEN max(revoked_at) END
FROM refresh_tokens
GROUP BY family_id;

ALTER TABLE refresh_tokens
    ADD CONSTRAINT refresh_tokens_family_id_fkey FOREIGN KEY (family_id) REFERENCES refresh_families (id) ON DELETE CASCADE;

-- Rotation as in 0006, with the family: its row is locked first (revocations lock it too),
-- then the presented token's; a revoked or ended family rotates nothing, and a successor
-- never outlives its family.
-- outcome: rotated, reused, unknown, expired, revoked or disabled; granted_until: the
-- successor's expiry when rotated.
DROP FUNCTION rotate_refresh_token(text, text, timestamptz, timestamptz);
CREATE FUNCTION rotate_refresh_token(
    presented text, successor text, successor_expires_at timestamptz, at_time timestamptz,
    OUT outcome text, OUT owner uuid, OUT granted_until timestamptz
) LANGUAGE plpgsql AS $$
DECLARE
    token refresh_tokens%ROWTYPE;
    family refresh_families%ROWTYPE;
    owner_disabled boolean;
BEGIN
    SELECT * INTO token FROM refresh_tokens WHERE token_hash = presented;
    IF NOT FOUND THEN
        outcome := 'unknown';
        RETURN;
    END IF;
    SELECT * INTO family FROM refresh_families WHERE id = token.family_id FOR UPDATE;
    -- Read again under the family's lock: a concurrent rotation may have used it.
    SELECT * INTO token FROM refresh_tokens WHERE token_hash = presented FOR UPDATE;
    IF NOT FOUND THEN
        outcome := 'unknown';
        RETURN;
    END IF;
    owner := token.user_id;
    IF token.used_at IS NOT NULL THEN
        UPDATE refresh_families SET revoked_at = at_time WHERE id = family.id AND revoked_at IS NULL;
        UPDATE refresh_tokens SET revoked_at = at_time WHERE family_id = family.id AND revoked_at IS NULL;
        outcome := 'reused';
        RETURN;
    END IF;
    IF family.revoked_at IS NOT NULL OR token.revoked_at IS NOT NULL THEN
        outcome := 'revoked';
        RETURN;
    END IF;
    IF token.expires_at <= at_time OR family.expires_at <= at_time THEN
        outcome := 'expired';
        RETURN;
    END IF;
    SELECT disabled_at IS NOT NULL INTO owner_disabled FROM users WHERE id = token.user_id;
    IF owner_disabled THEN
        outcome := 'disabled';
        RETURN;
    END IF;
    granted_until := least(successor_expires_at, family.expires_at);
    UPDATE refresh_tokens SET used_at = at_time WHERE token_hash = presented;
    INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, created_at)
    VALUES (successor, token.family_id, token.user_id, granted_until, at_time);
    outcome := 'rotated';
END
$$;
