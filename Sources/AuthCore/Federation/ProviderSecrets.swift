/// How the providers' secrets are sealed at rest: under the KEK's `provider-secrets` key,
/// each box bound to its provider's name and what it holds (a box moved to another provider
/// or another use does not open).
///
/// ```swift
/// let sealed = try ProviderSecrets.sealer(kek).seal(Data(secret.utf8), context: ProviderSecrets.clientSecretContext("corp"))
/// ```
public enum ProviderSecrets {
    /// The sealer of the providers' secrets under `keyEncryptionKey`.
    public static func sealer(_ keyEncryptionKey: KeyEncryptionKey) -> SecretSealer {
        SecretSealer(keyEncryptionKey: keyEncryptionKey, purpose: "provider-secrets")
    }

    /// The sealing context of `provider`'s client secret.
    public static func clientSecretContext(_ provider: String) -> String { "\(provider):client_secret" }
    /// The sealing context of `provider`'s Apple key.
    public static func appleKeyContext(_ provider: String) -> String { "\(provider):apple_key" }
    /// The sealing context of the refresh token `provider` issued to the identity `subject`.
    public static func refreshTokenContext(provider: String, subject: String) -> String { "\(provider):refresh_token:\(subject)" }
}
