import ContractKit
import Foundation

extension RequestSpec {
    /// ``render(with:codes:authenticators:)`` with `codes`, waiting for the next time step and
    /// trying again while a TOTP code has no unused step (``TOTPCodeGenerator/StepsUsed``): how
    /// a run renders what it sends, its WebAuthn credentials made by `authenticators`, its
    /// `signed` JWTs by `identityProvider`.
    ///
    /// ```swift
    /// let request = try await interaction.request.render(with: saved, waitingFor: codes, authenticators: authenticators)
    /// ```
    /// - Throws: ``Template/UndefinedVariable``, ``MatcherSampleError``,
    ///   ``WebAuthnAuthenticators/NoCredential``, `CancellationError`.
    public func render(
        with variables: [String: JSONValue], waitingFor codes: TOTPCodeGenerator, authenticators: WebAuthnAuthenticators? = nil,
        identityProvider: (any TokenMinter)? = nil
    ) async throws -> ContractRequest {
        while true {
            do {
                return try render(with: variables, codes: codes, authenticators: authenticators, identityProvider: identityProvider)
            } catch let used as TOTPCodeGenerator.StepsUsed {
                try await codes.wait(used)
            }
        }
    }
}
