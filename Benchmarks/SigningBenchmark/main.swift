// Prints what signing the tokens of a code exchange costs, per ID-token algorithm, through
// AuthCore's AccessTokenIssuer as authd signs them: one ID token (RS256, ES256 or EdDSA, the
// claims of a code's grant) and, for scale, one access token (always EdDSA). The median of
// many single signatures on one thread, no HTTP, no database.
//
//   swift run -c release SigningBenchmark [signatures]
//
// Each line is `name value unit`, for scripts/bench to read.
import AuthCore
import Foundation

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 2_000
let clock = SystemClock()
let issuer = AccessTokenIssuer(issuer: "https://id.example.com", lifetime: 900, clock: clock)
try issuer.install(try [SigningAlgorithm.edDSA, .es256, .rs256].map { try SigningKey.generate(now: clock.now, algorithm: $0) })
let grant = AuthorizationCode(
    codeHash: String(repeating: "0", count: 64), clientID: "orders-web", userID: UUID(), redirectURI: "https://app.example.com/callback",
    scopes: ["openid", "profile"], nonce: "n-0S6_WzA2Mj", codeChallenge: nil, authTime: clock.now, methods: ["pwd"],
    expiresAt: clock.now.addingTimeInterval(60))

/// The median of `count` timings of `work`, in microseconds.
func medianMicroseconds(_ work: () throws -> String) rethrows -> Double {
    let timer = ContinuousClock()
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = timer.now
        let token = try work()
        let took = timer.now - start
        precondition(!token.isEmpty)
        samples.append(Double(took.components.seconds) * 1e6 + Double(took.components.attoseconds) / 1e12)
    }
    return samples.sorted()[count / 2]
}

let accessToken = try issuer.issue(subject: grant.userID.uuidString.lowercased(), sessionID: UUID(), clientID: grant.clientID).value
for algorithm in [SigningAlgorithm.rs256, .es256, .edDSA] {
    let claims = IDTokenClaims(
        grant: grant, issuer: issuer.issuer, sessionID: UUID(), accessToken: accessToken, algorithm: algorithm.rawValue, now: clock.now)
    _ = try issuer.signIDToken(claims, algorithm: algorithm)
    print("id_token_us.\(algorithm.rawValue) \(try medianMicroseconds { try issuer.signIDToken(claims, algorithm: algorithm) }) µs")
}
print("access_token_us.EdDSA \(try medianMicroseconds { try issuer.issue(subject: grant.userID.uuidString, sessionID: UUID()).value }) µs")
