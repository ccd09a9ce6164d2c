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

    @Test(arguments: ["not base64!", "+/8", "a.b", "A"])
    func refusesWhatIsNotBase64URL(text: String) {
        #expect(Base64URL.decode(text) == nil)
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
