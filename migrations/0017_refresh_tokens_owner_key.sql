-- A refresh token's owner is its session's owner: the session (refresh_families) keeps the
-- foreign key to users, and deleting an account deletes its sessions and, through them,
-- their tokens. The token's own foreign key to users made every rotation check the account
-- row and lock it FOR KEY SHARE, a write to that row; concurrent refreshes of one
-- account's sessions shared the lock through a MultiXact. Dropping it is a change to the
-- catalog alone, however many tokens there are.
ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_user_id_fkey;
