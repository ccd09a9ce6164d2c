import JOSE
import Testing

/// The hash an ID token binds a token with (`at_hash`).
@Suite struct TokenHashTests {
    /// Values computed apart with Python's hashlib (`urlsafe_b64encode(sha256(t).digest()[:16])`).
    @Test func isTheLeftHalfOfTheAlgorithmsHash() {
        #expect(TokenHash.of("jHkWEdUXMU1BwAsC4vtUsZwnq6ExCoF0BxFmwuSqoG0", algorithm: "RS256") == "aDoHyhmpZ2DR5itgB2nyrQ")
        #expect(TokenHash.of("x", algorithm: "ES256").count == 22)
        #expect(TokenHash.of("x", algorithm: "EdDSA") == "pKvURIxJVi2CgRXROh_M6pJ_UrTVRZKX-LQ-QtqJI4s")
        #expect(TokenHash.of("x", algorithm: "ES384") == "11LCxR-6DimqGQVwqdQlPkQHegWNMpf6")
        #expect(TokenHash.of("x", algorithm: "RS256") != TokenHash.of("y", algorithm: "RS256"))
    }

    @Test func itsFormIsTheBase64URLOf16To32Bytes() {
        #expect(TokenHash.isHash(TokenHash.of("x", algorithm: "RS256")))
        #expect(TokenHash.isHash(TokenHash.of("x", algorithm: "ES384")))
        #expect(TokenHash.isHash(TokenHash.of("x", algorithm: "EdDSA")))
        #expect(!TokenHash.isHash("too-short"))
        #expect(!TokenHash.isHash("not base64url,twenty-2"), "22 characters, not base64url")
    }
}
