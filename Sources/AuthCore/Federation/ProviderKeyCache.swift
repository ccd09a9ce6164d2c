import Foundation
import Synchronization

/// The providers' published keys, fetched from each `jwks_uri` and kept as long as the
/// answer's `Cache-Control: max-age` says (between a minute and a day; an hour without
/// one). A token whose `kid` is not among them makes one fetch again, at most once per
/// ``refetchInterval`` for a provider, however many such tokens arrive, and callers
/// waiting at once share one fetch: tokens with made-up `kid`s cannot keep authd fetching.
/// When a fetch fails, keys fetched before are used until a day past their time.
///
/// ```swift
/// let cache = ProviderKeyCache(transport: transport)
/// let keys = try await cache.keys(of: provider, kid: "a1b2")
/// ```
public final class ProviderKeyCache: Sendable {
    /// How often an unknown `kid` may make a provider's keys be fetched again.
    public let refetchInterval: TimeInterval
    /// The bounds of how long fetched keys are kept.
    public static let lifetimes: ClosedRange<TimeInterval> = 60...86_400
    /// How long keys are kept when the answer says nothing.
    public static let defaultLifetime: TimeInterval = 3_600
    /// The most keys taken from one set.
    public static let keyLimit = 32

    private let transport: any ProviderTransport
    private let clock: any WallClock
    private let metrics: AuthMetrics

    private struct Entry {
        var keys: [ProviderPublicKey] = []
        var expiresAt: Date = .distantPast
        var fetchedAt: Date = .distantPast
        var fetching: Task<Fetched, any Error>?
    }

    private struct Fetched: Sendable {
        var keys: [ProviderPublicKey]
        var lifetime: TimeInterval
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// Creates the cache.
    public init(
        transport: any ProviderTransport, clock: any WallClock = SystemClock(), refetchInterval: TimeInterval = 30,
        metrics: AuthMetrics = AuthMetrics()
    ) {
        self.transport = transport
        self.clock = clock
        self.refetchInterval = refetchInterval
        self.metrics = metrics
    }

    /// `provider`'s keys, with the one named `kid` among them if it publishes it.
    /// - Throws: ``FederationError`` (unreachable) when none were ever fetched and the
    ///   provider does not answer with a key set.
    public func keys(of provider: IdentityProvider, kid: String?) async throws -> [ProviderPublicKey] {
        let url = provider.metadata.jwksURI
        let now = clock.now
        let (keys, running) = entries.withLock { entries -> ([ProviderPublicKey], Task<Fetched, any Error>?) in
            var entry = entries[url] ?? Entry()
            let known = kid.map { kid in entry.keys.contains { $0.kid == kid } } ?? !entry.keys.isEmpty
            let due = now >= entry.expiresAt || (!known && now.timeIntervalSince(entry.fetchedAt) >= refetchInterval)
            guard due || entry.fetching != nil else { return (entry.keys, nil) }
            if entry.fetching == nil {
                entry.fetchedAt = now
                entry.fetching = Task { [self] in try await self.fetch(provider) }
                entries[url] = entry
            }
            return (entry.keys, entry.fetching)
        }
        guard let running else { return keys }
        do {
            let fetched = try await running.value
            let lifetime = fetched.lifetime
            entries.withLock { entries in
                entries[url]?.keys = fetched.keys
                entries[url]?.expiresAt = clock.now.addingTimeInterval(lifetime)
                entries[url]?.fetching = nil
            }
            return fetched.keys
        } catch {
            let stale = entries.withLock { entries -> [ProviderPublicKey] in
                entries[url]?.fetching = nil
                guard let entry = entries[url], clock.now < entry.expiresAt.addingTimeInterval(86_400) else { return [] }
                return entry.keys
            }
            guard stale.isEmpty else { return stale }
            throw error
        }
    }

    /// Fetches `provider`'s key set.
    private func fetch(_ provider: IdentityProvider) async throws -> Fetched {
        metrics.providerKeysFetched(provider: provider.name)
        let url = try ProviderMetadata.url(provider.metadata.jwksURI, field: "jwks_uri")
        let response: ProviderResponse
        do {
            response = try await transport.send(ProviderRequest(get: url))
        } catch {
            throw FederationError.unreachable("the keys of provider '\(provider.name)'", "\(error)")
        }
        guard response.status == 200, let keys = ProviderPublicKey.keys(in: response.body) else {
            throw FederationError.unreachable("the keys of provider '\(provider.name)'", "HTTP \(response.status), not a JWK Set")
        }
        let lifetime = response.maxAge.map { TimeInterval($0) } ?? Self.defaultLifetime
        return Fetched(
            keys: Array(keys.prefix(Self.keyLimit)), lifetime: min(max(lifetime, Self.lifetimes.lowerBound), Self.lifetimes.upperBound))
    }
}
