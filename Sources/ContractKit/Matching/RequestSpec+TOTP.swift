import Foundation

extension RequestSpec {
    /// ``render(with:codes:)`` with `codes`, waiting for the next time step and trying again
    /// while a TOTP code has no unused step (``TOTPCodeGenerator/StepsUsed``): how a run
    /// renders what it sends.
    ///
    /// ```swift
    /// let request = try await interaction.request.render(with: saved, waitingFor: codes)
    /// ```
    /// - Throws: ``Template/UndefinedVariable``, ``MatcherSampleError``, `CancellationError`.
    public func render(with variables: [String: JSONValue], waitingFor codes: TOTPCodeGenerator) async throws -> ContractRequest {
        while true {
            do {
                return try render(with: variables, codes: codes)
            } catch let used as TOTPCodeGenerator.StepsUsed {
                try await codes.wait(used)
            }
        }
    }
}
