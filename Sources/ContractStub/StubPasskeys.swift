import ContractKit
import Foundation
import WebAuthn

/// The stub as a WebAuthn relying party: the passkeys registered in its session, and the
/// checks of the credentials `webauthn_registration` and `webauthn_assertion` matchers take.
///
/// A registration is taken when ``WebAuthn/WebAuthnRelyingParty`` verifies it (WebAuthn §7.1)
/// against the creation options saved under the matcher's `options` (their RP ID, challenge,
/// algorithms and user-verification requirement) and the matcher's `origin`, with `none` or
/// packed self-attestation, and its credential ID is new; an assertion when it verifies
/// (§7.2) against a registered credential of the request options' RP ID (one they allow),
/// their challenge and the origin, and its signature counter moved forward (a replayed
/// assertion does not). What a request's fit would change is applied only when its
/// interaction answers.
///
/// ```swift
/// var passkeys = StubPasskeys()
/// if case .success(let change?) = passkeys.check(spec, credential, known: saved) { passkeys.apply(change) }
/// ```
struct StubPasskeys: Sendable {
    /// A registered credential.
    struct Credential: Sendable {
        /// What an assertion is verified with (ID, public key, counter, user handle).
        var record: WebAuthnCredentialRecord
        /// The RP ID it was registered for.
        let rpID: String
    }

    /// What a credential the stub took changes.
    enum Change: Sendable {
        /// A new credential.
        case registered(Credential)
        /// A credential signed with this counter.
        case signed(id: Data, signCount: UInt32)
    }

    /// The credentials, by ID.
    private(set) var credentials: [Data: Credential] = [:]

    /// Whether `value` is a credential `spec` takes: `.success(nil)` while the options it
    /// names are not saved (a placeholder with no value: anything fits), `.success(change)`
    /// when it verifies, else why not.
    func check(_ spec: WebAuthnSpec, _ value: JSONValue, known: [String: JSONValue]) -> Result<Change?, WebAuthnError> {
        guard let saved = spec.savedOptions(with: known) else { return .success(nil) }
        let body = Data(value.description.utf8)
        do throws(WebAuthnError) {
            switch spec.ceremony {
            case .registration:
                return .success(
                    try register(
                        WebAuthnJSON.decode(RegistrationResponseJSON.self, from: body), options: spec.creationOptions(saved),
                        origin: spec.origin))
            case .assertion:
                return .success(
                    try assert(
                        WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: body), options: spec.requestOptions(saved),
                        origin: spec.origin))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Records what a taken credential changes.
    mutating func apply(_ change: Change) {
        switch change {
        case .registered(let credential): credentials[credential.record.id] = credential
        case .signed(let id, let signCount): credentials[id]?.record.signCount = signCount
        }
    }

    private func register(
        _ response: RegistrationResponseJSON, options: PublicKeyCredentialCreationOptionsJSON, origin: String
    ) throws(WebAuthnError) -> Change {
        let rpID = options.rp.id ?? Self.host(of: origin)
        let relyingParty = WebAuthnRelyingParty(
            id: rpID, name: options.rp.name, origins: [origin],
            userVerification: options.authenticatorSelection?.userVerification ?? .preferred,
            algorithms: options.pubKeyCredParams.compactMap { COSEAlgorithm(rawValue: $0.alg) }
        )
        let verified = try relyingParty.verifyRegistration(response, expectedChallenge: options.challenge)
        guard credentials[verified.id] == nil, !options.excludeCredentials.contains(where: { $0.id == verified.id }) else {
            throw .rejected(.credentialID, "the credential is registered already (a replayed registration)")
        }
        return .registered(Credential(record: verified.record(userHandle: options.user.id), rpID: rpID))
    }

    private func assert(
        _ response: AuthenticationResponseJSON, options: PublicKeyCredentialRequestOptionsJSON, origin: String
    ) throws(WebAuthnError) -> Change {
        guard let credential = credentials[response.rawId] else {
            throw .rejected(.credentialID, "no credential with this ID was registered with the stub")
        }
        let rpID = options.rpId ?? Self.host(of: origin)
        guard credential.rpID == rpID else { throw .rejected(.rpID, "the credential was registered for another RP ID") }
        guard options.allowCredentials.isEmpty || options.allowCredentials.contains(where: { $0.id == response.rawId }) else {
            throw .rejected(.credentialID, "the request options do not allow this credential")
        }
        let relyingParty = WebAuthnRelyingParty(
            id: rpID, name: rpID, origins: [origin], userVerification: options.userVerification ?? .preferred)
        let assertion = try relyingParty.verifyAuthentication(response, expectedChallenge: options.challenge, credential: credential.record)
        guard !assertion.signCountRegressed else {
            throw .rejected(.signCount, "the signature counter did not move forward (a replayed assertion)")
        }
        return .signed(id: assertion.credentialID, signCount: assertion.signCount)
    }

    /// The host of an origin, the RP ID a client uses when the options name none.
    private static func host(of origin: String) -> String {
        URLComponents(string: origin)?.host ?? origin
    }
}
