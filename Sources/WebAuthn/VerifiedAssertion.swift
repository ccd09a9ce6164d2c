import Foundation

/// An authentication that passed every check. A counter that did not move forward is
/// reported, not thrown: a cloned authenticator shows that way, but so do some that count
/// badly; the caller audits it and decides (refusing is the cautious choice).
///
/// ```swift
/// let assertion = try relyingParty.verifyAuthentication(response, expectedChallenge: challenge, credential: record)
/// if assertion.signCountRegressed { audit(.webAuthnCounterRegressed); throw AuthError.invalidCredentials }
/// try await credentials.update(id: assertion.credentialID, signCount: assertion.signCount, backedUp: assertion.isBackedUp)
/// ```
public struct VerifiedAssertion: Sendable, Equatable {
    /// The credential that signed.
    public let credentialID: Data
    /// The authenticator's signature counter now (store it).
    public let signCount: UInt32
    /// Whether the counter failed to increase: either counter is non-zero and the new one
    /// is not above the stored one.
    public let signCountRegressed: Bool
    /// UV: the user was verified.
    public let isUserVerified: Bool
    /// BS: the credential is backed up now (it may change between assertions).
    public let isBackedUp: Bool
    /// The user handle the authenticator returned (discoverable credentials), if any.
    public let userHandle: Data?

    /// Creates the value.
    ///
    /// ```swift
    /// VerifiedAssertion(credentialID: id, signCount: 2, signCountRegressed: false, isUserVerified: true, isBackedUp: false, userHandle: nil)
    /// ```
    public init(credentialID: Data, signCount: UInt32, signCountRegressed: Bool, isUserVerified: Bool, isBackedUp: Bool, userHandle: Data?)
    {
        self.credentialID = credentialID
        self.signCount = signCount
        self.signCountRegressed = signCountRegressed
        self.isUserVerified = isUserVerified
        self.isBackedUp = isBackedUp
        self.userHandle = userHandle
    }
}
