-- Exchanges a refresh token for its successor in one statement. The presented row is
-- locked, so of two concurrent exchanges of one token exactly one rotates; the other then
-- sees a used token, which is a reuse: the whole family is revoked.
-- outcome: rotated, reused, unknown, expired, revoked or disabled.
CREATE FUNCTION rotate_refresh_token(
    presented text, successor text, successor_expires_at timestamptz, at_time timestamptz,
    OUT outcome text, OUT owner uuid
) LANGUAGE plpgsql AS $$
DECLARE
    token refresh_tokens%ROWTYPE;
    owner_disabled boolean;
BEGIN
    SELECT * INTO token FROM refresh_tokens WHERE token_hash = presented FOR UPDATE;
    IF NOT FOUND THEN
        outcome := 'unknown';
        RETURN;
    END IF;
    owner := token.user_id;
    IF token.used_at IS NOT NULL THEN
        UPDATE refresh_tokens SET revoked_at = at_time
        WHERE family_id = token.family_id AND revoked_at IS NULL;
        outcome := 'reused';
        RETURN;
    END IF;
    IF token.revoked_at IS NOT NULL THEN
        outcome := 'revoked';
        RETURN;
    END IF;
    IF token.expires_at <= at_time THEN
        outcome := 'expired';
        RETURN;
    END IF;
    SELECT disabled_at IS NOT NULL INTO owner_disabled FROM users WHERE id = token.user_id;
    IF owner_disabled THEN
        outcome := 'disabled';
        RETURN;
    END IF;
    UPDATE refresh_tokens SET used_at = at_time WHERE token_hash = presented;
    INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, created_at)
    VALUES (successor, token.family_id, token.user_id, successor_expires_at, at_time);
    outcome := 'rotated';
END
$$;
