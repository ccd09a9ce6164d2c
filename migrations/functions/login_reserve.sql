-- login_reserve: the current body (migrating applies it with CREATE OR REPLACE after the
-- migrations; 0009 made it). Reserves one attempt against every key when none is at its
-- limit, else counts nothing and returns how long to wait and whether this is the window's
-- first refusal. The rows are created and locked in one order, so concurrent logins on the
-- same keys queue behind each other instead of reading the same count. Login attempts are
-- reserved before the password is checked, so simultaneous guesses cannot outrun a limit.
-- A change that keeps its arguments and results is made here; one that changes them needs a
-- migration that drops it first.
CREATE OR REPLACE FUNCTION login_reserve(
    scopes text[], digests text[], attempt_limits bigint[], window_seconds bigint[], max_window_seconds bigint[],
    at_time timestamptz, OUT retry_after bigint, OUT first_refusal boolean
) LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO login_failures (scope, subject_digest, failures, window_start)
    SELECT k.scope, k.digest, 0, at_time FROM unnest(scopes, digests) AS k(scope, digest)
    ORDER BY k.scope, k.digest
    ON CONFLICT (scope, subject_digest) DO NOTHING;

    PERFORM 1 FROM login_failures f
    JOIN unnest(scopes, digests) AS k(scope, digest) ON f.scope = k.scope AND f.subject_digest = k.digest
    ORDER BY f.scope, f.subject_digest
    FOR UPDATE OF f;

    -- A window that has ended starts again; one whose attempts were all used makes the
    -- next one of a growing key twice as long.
    UPDATE login_failures f SET
        lockouts = CASE WHEN f.failures >= k.attempt_limit AND k.max_window > k.window_length
                        THEN least(f.lockouts + 1, 20) ELSE 0 END,
        failures = 0, refusals = 0, window_start = at_time
    FROM unnest(scopes, digests, attempt_limits, window_seconds, max_window_seconds)
        AS k(scope, digest, attempt_limit, window_length, max_window)
    WHERE f.scope = k.scope AND f.subject_digest = k.digest
      AND f.window_start + make_interval(secs => least(k.window_length * 2 ^ f.lockouts, k.max_window)) <= at_time;

    SELECT max(ceil(extract(epoch FROM
               f.window_start + make_interval(secs => least(k.window_length * 2 ^ f.lockouts, k.max_window)) - at_time)))::bigint
    INTO retry_after
    FROM login_failures f
    JOIN unnest(scopes, digests, attempt_limits, window_seconds, max_window_seconds)
        AS k(scope, digest, attempt_limit, window_length, max_window)
        ON f.scope = k.scope AND f.subject_digest = k.digest
    WHERE f.failures >= k.attempt_limit;

    IF retry_after IS NOT NULL THEN
        WITH refused AS (
            UPDATE login_failures f SET refusals = f.refusals + 1
            FROM unnest(scopes, digests, attempt_limits) AS k(scope, digest, attempt_limit)
            WHERE f.scope = k.scope AND f.subject_digest = k.digest AND f.failures >= k.attempt_limit
            RETURNING f.refusals
        )
        SELECT bool_or(refused.refusals = 1) INTO first_refusal FROM refused;
        RETURN;
    END IF;

    UPDATE login_failures f SET failures = f.failures + 1
    FROM unnest(scopes, digests) AS k(scope, digest)
    WHERE f.scope = k.scope AND f.subject_digest = k.digest;
END
$$;
