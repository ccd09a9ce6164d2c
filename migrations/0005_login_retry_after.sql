-- The longest wait, in whole seconds, among throttle keys that are over their limit at
-- `at_time` (NULL when none is): every key of a login in one statement, shared by the
-- throttle check alone and by the login lookup that also fetches the account.
CREATE FUNCTION login_retry_after(
    scopes text[], digests text[], failure_limits bigint[], window_seconds bigint[], at_time timestamptz
) RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT max(ceil(extract(epoch FROM f.window_start + make_interval(secs => k.window_seconds) - at_time)))::bigint
    FROM unnest(scopes, digests, failure_limits, window_seconds) AS k(scope, digest, failure_limit, window_seconds)
    JOIN login_failures f ON f.scope = k.scope AND f.subject_digest = k.digest
    WHERE f.failures >= k.failure_limit
      AND f.window_start + make_interval(secs => k.window_seconds) > at_time
$$;
