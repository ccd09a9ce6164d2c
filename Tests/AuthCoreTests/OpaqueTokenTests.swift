import AuthCore
import Testing

/// Refresh tokens (and the other opaque secrets) are 32 random bytes in base64url, stored as
/// their SHA-256.
@Suite struct OpaqueTokenTests {
    @Test func refreshTokensAreFortyThreeBase64URLCharacters() {
        let (token, hash) = RefreshToken.generate()
        #expect(token.utf8.count == 43)
        #expect(
            token.utf8.allSatisfy {
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90)
                    || ($0 >= 97 && $0 <= 122)
            })
        #expect(hash == RefreshToken.hash(of: token))
        #expect(hash.utf8.count == 64)
        #expect(RefreshToken.generate().token != token)
    }
}
