import Foundation
import JOSE
import Testing

@Suite struct Base64URLTests {
    @Test func roundTripsWithoutPadding() throws {
        let bytes = Data([0xfb, 0xff, 0x00, 0x10])
        let text = Base64URL.encode(bytes)
        #expect(text == "-_8AEA")
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode("-_8") == Data([0xfb, 0xff]))
        #expect(Base64URL.decode("-_8=") == Data([0xfb, 0xff]))
    }

    @Test(arguments: ["not base64!", "+/8", "a.b", "A", "-_8==", "-_8AEA=", "=-_8", "é", "ABCDE"])
    func refusesWhatIsNotBase64URL(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    /// Every length and every byte value, against Foundation's base64 with the alphabet
    /// swapped and the padding dropped.
    @Test func agreesWithFoundationsBase64() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let expected = bytes.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(expected) == bytes)
            #expect(Base64URL.decode(expected + String(repeating: "=", count: (4 - expected.count % 4) % 4)) == bytes)
        }
        let all = Data((0...255).map { UInt8($0) })
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
        // Random text of the alphabet, as generated identifiers are: decoded as Foundation
        // decodes it, unused bits included.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for length in 0..<40 where length % 4 != 1 {
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "A" })
            let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            let padded = standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)
            #expect(Base64URL.decode(text) == Data(base64Encoded: padded), "\(text)")
        }
    }
}

@Suite struct CompactJWSTests {
    @Test func serializesSignsTheSigningInputAndParsesBack() throws {
        let header = Data(#"{"alg":"EdDSA"}"#.utf8)
        let payload = Data(#"{"sub":"u1"}"#.utf8)
        var signed: Data?
        let token = CompactJWS.serialize(header: header, payload: payload) { input in
            signed = input
            return Data([0xfb, 0xff])
        }
        #expect(token == "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.-_8")
        #expect(signed == Data("eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9".utf8))

        let parsed = try #require(CompactJWS(token))
        #expect(parsed.header == header)
        #expect(parsed.payload == payload)
        #expect(parsed.signature == Data([0xfb, 0xff]))
        #expect(parsed.signingInput == signed)
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "eyJ9.e+J9.AA", "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1MSJ9.A"])
    func refusesWhatIsNotThreeBase64URLSegments(text: String) {
        #expect(CompactJWS(text) == nil)
    }
}
