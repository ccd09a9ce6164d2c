-- Private keys sealed at rest: AES-GCM under the key-encryption key (KEK), the kid as
-- authenticated data, beside the KEK's fingerprint. SQL cannot seal without the KEK, so
-- this only makes room: authd seals every clear row when it starts with the KEK
-- (KeyService.sealUnsealedKeys) and sets private_key to NULL. A row is clear or sealed,
-- never both.
ALTER TABLE signing_keys
    ALTER COLUMN private_key DROP NOT NULL,
    ADD COLUMN sealed_private_key bytea,
    ADD COLUMN kek_fingerprint text,
    ADD CONSTRAINT signing_keys_clear_or_sealed CHECK (
        (private_key IS NULL) = (sealed_private_key IS NOT NULL)
        AND (sealed_private_key IS NULL) = (kek_fingerprint IS NULL)
    );
