-- Email change: a token of purpose email_change proves a new address, kept (with its key)
-- on the token until it is used, when it becomes the account's.
ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_purpose_check;
ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose_check
    CHECK (purpose IN ('password_reset', 'email_verification', 'email_change'));
ALTER TABLE account_tokens ADD COLUMN email_key text;
