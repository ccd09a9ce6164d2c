-- A success's release of login counters as a function that locks them in order
-- (functions/login_release.sql has its current body).
-- What a success gives back: the counters of the clear_* keys set to nothing (their
-- failures, refusals and lockouts), one attempt given back to each of the give_* keys.
-- Every one of their rows is locked first, in (scope, subject_digest) order as
-- login_reserve locks them. A cleared counter is reset, not deleted: when it was deleted, a
-- reservation at the same moment inserted it again, and concurrent reservations and
-- releases of one key (a client's client_credentials grants) waited on each other's new
-- rows until PostgreSQL ended one of them, after deadlock_timeout, with an error.
CREATE FUNCTION login_release(clear_scopes text[], clear_digests text[], give_scopes text[], give_digests text[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM login_failures f
    JOIN (SELECT * FROM unnest(clear_scopes, clear_digests) UNION SELECT * FROM unnest(give_scopes, give_digests))
        AS k(scope, digest) ON f.scope = k.scope AND f.subject_digest = k.digest
    ORDER BY f.scope, f.subject_digest
    FOR UPDATE OF f;

    UPDATE login_failures f SET failures = 0, refusals = 0, lockouts = 0
    FROM unnest(clear_scopes, clear_digests) AS k(scope, digest)
    WHERE f.scope = k.scope AND f.subject_digest = k.digest;

    UPDATE login_failures f SET failures = greatest(f.failures - 1, 0)
    FROM unnest(give_scopes, give_digests) AS k(scope, digest)
    WHERE f.scope = k.scope AND f.subject_digest = k.digest;
END
$$;
