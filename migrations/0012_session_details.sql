-- What a session's owner sees of it (GET /sessions): when it last got tokens, and the
-- client's address and User-Agent at its login. Sessions from before have their start as
-- their last use.
ALTER TABLE refresh_families
    ADD COLUMN last_used_at timestamptz,
    ADD COLUMN client_address text,
    ADD COLUMN user_agent text;
UPDATE refresh_families SET last_used_at = created_at;
ALTER TABLE refresh_families ALTER COLUMN last_used_at SET NOT NULL;

-- Rotation as in 0008, also stamping the session's last use and naming the session (the
-- access token it issues carries it as `sid`).
DROP FUNCTION rotate_refresh_token(text, text, timestamptz, timestamptz);
CREATE FUNCTION rotate_refresh_token(
    presented text, successor text, successor_expires_at timestamptz, at_time timestamptz,
    OUT outcome text, OUT owner uuid, OUT granted_until timestamptz, OUT session uuid
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
    UPDATE refresh_families SET last_used_at = at_time WHERE id = family.id;
    session := family.id;
    outcome := 'rotated';
END
$$;
