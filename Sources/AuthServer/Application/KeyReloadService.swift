import AuthCore
import Logging
import ServiceLifecycle

/// Reloads the published signing keys every `interval`, so that a key added by
/// `authd keys rotate` (on any instance) signs and is published here too. A failed reload
/// (the database is away) keeps the keys in use and tries again next time.
struct KeyReloadService<Storage: AuthStorage>: Service {
    let keys: KeyService<Storage>
    let issuer: AccessTokenIssuer
    let interval: Duration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await reload()
            }
        }
    }

    private func reload() async {
        do {
            let published = try await keys.published()
            guard !published.isEmpty, published.map(\.kid) != (await issuer.kids) else { return }
            try await issuer.install(published)
            logger.info("signing keys reloaded", metadata: ["current_kid": "\(published[0].kid)"])
        } catch let error as SealingError {
            // Names the key and the KEKs' fingerprints, never a secret.
            logger.error("signing key reload failed", metadata: ["reason": "\(error)"])
        } catch {
            logger.warning("signing key reload failed", metadata: ["reason": "\(type(of: error))"])
        }
    }
}
