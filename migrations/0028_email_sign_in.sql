-- Email sign-in: a token of purpose email_sign_in is delivered to a verified address with a
-- 6-digit code derived from it (an HMAC of its digest under a key derived from the KEK, so a
-- copy of this table yields no code). failed_attempts counts wrong codes; the fifth uses the
-- token up.
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('password_reset', 'email_verification', 'email_change', 'email_sign_in'));
ALTER TABLE account_tokens ADD COLUMN failed_attempts integer NOT NULL DEFAULT 0;
CREATE INDEX account_tokens_live_sign_in ON account_tokens (user_id, created_at)
    WHERE purpose = 'email_sign_in' AND used_at IS NULL;
