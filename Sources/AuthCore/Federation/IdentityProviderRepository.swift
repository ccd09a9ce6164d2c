import Foundation

/// Storage of the upstream providers (``IdentityProvider``).
///
/// ```swift
/// try await storage.providers.add(provider, replacing: false)
/// let google = try await storage.providers.provider(named: "google")
/// ```
public protocol IdentityProviderRepository: Sendable {
    /// Stores `provider`; with `replacing`, over one of the same name (its identities
    /// kept). False, storing nothing, when the name is taken and not `replacing`.
    func add(_ provider: IdentityProvider, replacing: Bool) async throws -> Bool
    /// The provider with this name.
    func provider(named name: String) async throws -> IdentityProvider?
    /// Every provider, by name.
    func all() async throws -> [IdentityProvider]
    /// Deletes the provider and its identities; nil when there is none, else how many
    /// identities were unlinked.
    func remove(named name: String) async throws -> Int?
}
