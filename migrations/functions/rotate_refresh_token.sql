-- rotate_refresh_token: the current body (migrating applies it with CREATE OR REPLACE after
-- the migrations; 0006 made it, 0008, 0012, 0018 and 0026 changed it). One refresh, in one call:
-- the presented token's session (family) is locked, then the token; a token of another
-- client's session (for_client: the OpenID Connect client's id, NULL for authd's own login
-- routes) is unknown to this one and changes nothing; a token used before
-- revokes its whole session (reuse detection, RFC 9700 §4.14.2); a revoked, expired or
-- disabled one is refused; otherwise it is marked used and its successor inserted, expiring
-- no later than the session. Each locked row is updated by its row address (ctid), which
-- no other transaction can change while the lock is held, instead of being looked up again
-- through its key: one descent of the tokens' hash index fewer per rotation.
-- A change that keeps its arguments and results is made here; one that changes them needs a
-- migration that drops it first.
CREATE OR REPLACE FUNCTION rotate_refresh_token(
    presented text, successor text, successor_expires_at timestamptz, at_time timestamptz, for_client text,
    OUT outcome text, OUT owner uuid, OUT granted_until timestamptz, OUT session uuid, OUT granted_scopes text[]
) LANGUAGE plpgsql AS $$
DECLARE
    token_family uuid;
    token record;
    family record;
    owner_disabled boolean;
BEGIN
    SELECT family_id INTO token_family FROM refresh_tokens WHERE token_hash = presented;
    IF NOT FOUND THEN
        outcome := 'unknown';
        RETURN;
    END IF;
    SELECT f.*, f.ctid AS row_address INTO family FROM refresh_families f WHERE f.id = token_family FOR UPDATE;
    IF family.client_id IS DISTINCT FROM for_client THEN
        outcome := 'unknown';
        RETURN;
    END IF;
    -- Read again under the family's lock: a concurrent rotation may have used it.
    SELECT t.*, t.ctid AS row_address INTO token FROM refresh_tokens t WHERE t.token_hash = presented FOR UPDATE;
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
    UPDATE refresh_tokens SET used_at = at_time WHERE ctid = token.row_address;
    INSERT INTO refresh_tokens (token_hash, family_id, user_id, expires_at, created_at)
    VALUES (successor, token.family_id, token.user_id, granted_until, at_time);
    UPDATE refresh_families SET last_used_at = at_time WHERE ctid = family.row_address;
    session := family.id;
    granted_scopes := family.scopes;
    outcome := 'rotated';
END
$$;
