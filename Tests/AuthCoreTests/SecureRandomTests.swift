import AuthCore
import Testing

/// `SecureRandom` hands out exactly the bytes asked for, eight from each draw of the
/// system generator, and different ones each time.
@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 7, 8, 9, 23, 32, 33])
    func givesTheCountAskedFor(count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test func drawsDifferentBytesEachTime() {
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
        // 4,096 bytes from 256 values: a generator stuck on a few, or a word's bytes copied
        // over and over, would show far fewer.
        let bytes = SecureRandom.bytes(4096)
        #expect(Set(bytes).count > 200)
        #expect(Set(stride(from: 0, to: bytes.count, by: 8).map { bytes[$0] }).count > 150)
    }

    @Test func refreshTokensAreFortyThreeBase64URLCharacters() {
        let (token, hash) = RefreshToken.generate()
        #expect(token.utf8.count == 43)
        #expect(token.utf8.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) })
        #expect(hash == RefreshToken.hash(of: token))
        #expect(RefreshToken.generate().token != token)
    }
}
