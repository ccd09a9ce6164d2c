import JOSE
import Testing

/// `SecureRandom` hands out exactly the bytes asked for, from one system call per 256 bytes,
/// and different ones each time.
@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 7, 8, 9, 23, 32, 33, 255, 256, 257, 600])
    func givesTheCountAskedFor(count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    @Test func drawsDifferentBytesEachTime() {
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
        // 4,096 bytes from 256 values: a generator stuck on a few, or a chunk's bytes copied
        // over and over, would show far fewer; so would a buffer left partly unfilled. (The
        // last 256 bytes show 162 values on average, 5 either side: a floor of 150 failed
        // about one run in a hundred; 120 is eight deviations below.)
        let bytes = SecureRandom.bytes(4096)
        #expect(Set(bytes).count > 200)
        #expect(Set(stride(from: 0, to: bytes.count, by: 256).map { bytes[$0] }).count > 8)
        #expect(Set(bytes[3840...]).count > 120)
    }

    @Test func base64URLTextIsTheLengthAskedForInTheAlphabet() {
        let text = SecureRandom.base64URLText(length: 43)
        #expect(text.utf8.count == 43)
        #expect(
            text.utf8.allSatisfy {
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90)
                    || ($0 >= 97 && $0 <= 122)
            })
        #expect(SecureRandom.base64URLText(length: 43) != text)
        // All 64 characters turn up in 4,096 of them: each draw's low six bits are used.
        #expect(Set(SecureRandom.base64URLText(length: 4096).utf8).count == 64)
        #expect(SecureRandom.base64URLText(length: 0).isEmpty)
    }
}
