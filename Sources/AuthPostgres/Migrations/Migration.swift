/// One schema change: a SQL file from the repository's top-level `migrations/`, embedded
/// in the binary (through the `migrations` link in this target's folder).
///
/// ```swift
/// Migration.all.map(\.version)   // ["0001_users", "0002_signing_keys", …]
/// ```
public struct Migration: Sendable, Equatable {
    /// The file name without `.sql`; recorded in `schema_migrations`.
    public let version: String
    /// The SQL, run as one simple-query batch.
    public let sql: String

    /// Creates a migration.
    public init(version: String, sql: String) {
        self.version = version
        self.sql = sql
    }
}

extension Migration {
    /// Every migration, in the order applied. A test checks this matches the files in
    /// the top-level `migrations/`, byte for byte.
    public static let all: [Migration] = [
        Migration(version: "0001_users", bytes: PackageResources._001_users_sql),
        Migration(version: "0002_signing_keys", bytes: PackageResources._002_signing_keys_sql),
        Migration(version: "0003_refresh_tokens", bytes: PackageResources._003_refresh_tokens_sql),
        Migration(version: "0004_login_failures", bytes: PackageResources._004_login_failures_sql),
        Migration(version: "0005_login_retry_after", bytes: PackageResources._005_login_retry_after_sql),
        Migration(version: "0006_rotate_refresh_token", bytes: PackageResources._006_rotate_refresh_token_sql),
        Migration(version: "0007_audit_events", bytes: PackageResources._007_audit_events_sql),
        Migration(version: "0008_refresh_families", bytes: PackageResources._008_refresh_families_sql),
        Migration(version: "0009_login_attempt_reservations", bytes: PackageResources._009_login_attempt_reservations_sql),
        Migration(version: "0010_sealed_signing_keys", bytes: PackageResources._010_sealed_signing_keys_sql),
        Migration(version: "0011_retention_indexes", bytes: PackageResources._011_retention_indexes_sql),
        Migration(version: "0012_session_details", bytes: PackageResources._012_session_details_sql),
        Migration(version: "0013_account_tokens_and_deliveries", bytes: PackageResources._013_account_tokens_and_deliveries_sql),
        Migration(version: "0014_second_factors", bytes: PackageResources._014_second_factors_sql),
        Migration(version: "0015_passkeys", bytes: PackageResources._015_passkeys_sql),
        Migration(version: "0016_oauth_clients", bytes: PackageResources._016_oauth_clients_sql),
        Migration(version: "0017_refresh_tokens_owner_key", bytes: PackageResources._017_refresh_tokens_owner_key_sql),
        Migration(version: "0018_rotation_by_row", bytes: PackageResources._018_rotation_by_row_sql),
        Migration(version: "0019_username_width_mapping", bytes: PackageResources._019_username_width_mapping_sql),
        Migration(version: "0020_trusted_introspectors", bytes: PackageResources._020_trusted_introspectors_sql),
        Migration(version: "0021_known_login_addresses", bytes: PackageResources._021_known_login_addresses_sql),
        Migration(version: "0022_email_change", bytes: PackageResources._022_email_change_sql),
        Migration(version: "0023_oidc_clients", bytes: PackageResources._023_oidc_clients_sql),
        Migration(version: "0024_authorization_codes", bytes: PackageResources._024_authorization_codes_sql),
        Migration(version: "0025_signing_key_algorithms", bytes: PackageResources._025_signing_key_algorithms_sql),
        Migration(version: "0026_oidc_sessions", bytes: PackageResources._026_oidc_sessions_sql),
        Migration(version: "0027_identity_providers", bytes: PackageResources._027_identity_providers_sql),
        Migration(version: "0028_email_sign_in", bytes: PackageResources._028_email_sign_in_sql),
        Migration(version: "0029_provider_revocations", bytes: PackageResources._029_provider_revocations_sql),
        Migration(version: "0030_provider_names", bytes: PackageResources._030_provider_names_sql),
        Migration(version: "0031_revoked_client_tokens", bytes: PackageResources._031_revoked_client_tokens_sql),
        Migration(version: "0032_login_release", bytes: PackageResources._032_login_release_sql),
    ]

    private init(version: String, bytes: [UInt8]) {
        self.init(version: version, sql: String(decoding: bytes, as: UTF8.self))
    }
}
