import AuthCore
import Logging

/// Reloads the published signing keys (every `keyReloadInterval`, through
/// ``PeriodicService``), so that a key added by `authd keys rotate` (on any instance) signs
/// and is published here too. A failed reload (the database is away) keeps the keys in use
/// and tries again next time.
struct KeyReloader<Storage: AuthStorage>: Sendable {
    let keys: KeyService<Storage>
    let issuer: AccessTokenIssuer
    let logger: Logger

    func reload() async {
        do {
            let published = try await keys.published()
            guard !published.isEmpty, published.map(\.kid) != issuer.kids else { return }
            try issuer.install(published)
            logger.info("signing keys reloaded", metadata: ["current_kid": "\(published[0].kid)"])
        } catch let error as SealingError {
            // Names the key and the KEKs' fingerprints, never a secret.
            logger.error("signing key reload failed", metadata: ["reason": "\(error)"])
        } catch {
            logger.warning("signing key reload failed", metadata: ["reason": "\(type(of: error))"])
        }
    }
}
