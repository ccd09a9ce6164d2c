-- Retention deletes old rows in batches; these indexes find them without scanning the
-- tables (audit_events is already indexed on `at`).
CREATE INDEX login_failures_window_start ON login_failures (window_start);
CREATE INDEX refresh_tokens_expires_at ON refresh_tokens (expires_at);
CREATE INDEX refresh_families_expires_at ON refresh_families (expires_at);
CREATE INDEX refresh_families_revoked_at ON refresh_families (revoked_at) WHERE revoked_at IS NOT NULL;
