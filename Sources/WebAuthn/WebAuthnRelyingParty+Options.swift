import Foundation

extension WebAuthnRelyingParty {
    /// The ceremonies' default timeout: 5 minutes, in milliseconds (WebAuthn §15.1).
    public static let defaultTimeout = 300_000

    /// The options of a registration for `user`: this relying party, its algorithms in
    /// order, its user-verification requirement, `attestation: "none"`, and `credProps` asked
    /// for. `challenge` must be fresh random bytes (32 is usual) that the server keeps.
    ///
    /// ```swift
    /// let options = relyingParty.creationOptions(
    ///     challenge: Data(SecureRandom.bytes(32)),
    ///     user: .init(id: handle, name: user.username, displayName: user.username),
    ///     excludeCredentials: existing.map { PublicKeyCredentialDescriptorJSON(id: $0.id, transports: $0.transports) }
    /// )
    /// ```
    public func creationOptions(
        challenge: Data, user: PublicKeyCredentialCreationOptionsJSON.UserEntity,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        residentKey: PublicKeyCredentialCreationOptionsJSON.ResidentKeyRequirement = .required,
        timeout: Int = defaultTimeout
    ) -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: id, name: name),
            user: user,
            challenge: challenge,
            pubKeyCredParams: algorithms.map(PublicKeyCredentialCreationOptionsJSON.Parameters.init),
            timeout: timeout,
            excludeCredentials: excludeCredentials,
            authenticatorSelection: .init(residentKey: residentKey, userVerification: userVerification),
            attestation: "none",
            extensions: .init(credProps: true)
        )
    }

    /// The options of an authentication. With no `allowCredentials` the user picks any
    /// passkey of this RP ID (the response's `userHandle` then names the account); with
    /// some, only those may answer.
    ///
    /// ```swift
    /// let options = relyingParty.requestOptions(challenge: Data(SecureRandom.bytes(32)))
    /// ```
    public func requestOptions(
        challenge: Data, allowCredentials: [PublicKeyCredentialDescriptorJSON] = [], timeout: Int = defaultTimeout
    ) -> PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(
            challenge: challenge, timeout: timeout, rpId: id, allowCredentials: allowCredentials, userVerification: userVerification
        )
    }
}
