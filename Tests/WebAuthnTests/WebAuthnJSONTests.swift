import Foundation
import JOSE
import Testing

@testable import WebAuthn

/// The JSON forms: the options carry exactly the members browsers'
/// `parseCreationOptionsFromJSON`/`parseRequestOptionsFromJSON` read, and responses decode
/// tolerantly (padding, unknown members, optional ones) while every bad shape is an error.
@Suite struct WebAuthnJSONTests {
    static func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func creationOptionsHaveTheSpecsMembers() throws {
        var relyingParty = WebAuthnFixtures.relyingParty(userVerification: .required)
        relyingParty.name = "Example Login"
        let options = relyingParty.creationOptions(
            challenge: Data([0xfb, 0xff, 0x00]), user: .init(id: Data([1, 2, 3]), name: "alice", displayName: "Alice A."),
            excludeCredentials: [.init(id: Data([0xfb, 0xff]), transports: ["usb", "nfc"]), .init(id: Data([9]), transports: [])]
        )
        let json = try Self.object(options)
        let members: Set = [
            "rp", "user", "challenge", "pubKeyCredParams", "timeout", "excludeCredentials", "authenticatorSelection", "attestation",
            "extensions",
        ]
        #expect(Set(json.keys) == members)
        #expect(json["rp"] as? [String: String] == ["id": "example.org", "name": "Example Login"])
        #expect(json["user"] as? [String: String] == ["id": "AQID", "name": "alice", "displayName": "Alice A."])
        #expect(json["challenge"] as? String == "-_8A")
        let parameters = try #require(json["pubKeyCredParams"] as? [[String: Any]])
        #expect(parameters.map { $0["alg"] as? Int } == [-8, -7, -257])
        #expect(parameters.allSatisfy { $0["type"] as? String == "public-key" && $0.count == 2 })
        #expect(json["timeout"] as? Int == 300_000)
        let excluded = try #require(json["excludeCredentials"] as? [[String: Any]])
        #expect(excluded[0]["id"] as? String == "-_8" && excluded[0]["type"] as? String == "public-key")
        #expect(excluded[0]["transports"] as? [String] == ["usb", "nfc"] && excluded[1]["transports"] == nil)
        let selection = try #require(json["authenticatorSelection"] as? [String: Any])
        #expect(selection["residentKey"] as? String == "required" && selection["requireResidentKey"] as? Bool == true)
        #expect(selection["userVerification"] as? String == "required" && selection["authenticatorAttachment"] == nil)
        #expect(json["attestation"] as? String == "none")
        #expect(json["extensions"] as? [String: Bool] == ["credProps": true])
        #expect(try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: JSONEncoder().encode(options)) == options)
    }

    @Test func requestOptionsHaveTheSpecsMembers() throws {
        let options = WebAuthnFixtures.relyingParty().requestOptions(
            challenge: Data(repeating: 0xff, count: 32), allowCredentials: [.init(id: Data([1]), transports: ["internal", "hybrid"])],
            timeout: 60_000
        )
        let json = try Self.object(options)
        #expect(Set(json.keys) == ["challenge", "timeout", "rpId", "allowCredentials", "userVerification"])
        #expect(json["challenge"] as? String == String(repeating: "_", count: 42) + "8")
        #expect(json["rpId"] as? String == "example.org" && json["userVerification"] as? String == "preferred")
        #expect(json["timeout"] as? Int == 60_000)
        #expect((json["allowCredentials"] as? [[String: Any]])?.first?["transports"] as? [String] == ["internal", "hybrid"])
        #expect(try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: JSONEncoder().encode(options)) == options)
        let discoverable = try Self.object(WebAuthnFixtures.relyingParty().requestOptions(challenge: Data([1])))
        #expect((discoverable["allowCredentials"] as? [Any])?.isEmpty == true)
    }

    static let registration = #"""
        {"id":"AQID","rawId":"AQID","type":"public-key",
         "response":{"clientDataJSON":"e30","attestationObject":"oA==","transports":["usb","future-transport"],
                     "publicKeyAlgorithm":-7,"somethingNew":{"a":[1,2]}},
         "authenticatorAttachment":"cross-platform","clientExtensionResults":{"credProps":{"rk":false},"prf":{"enabled":true}}}
        """#

    @Test func responsesDecodeTolerantly() throws {
        let registration = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(Self.registration.utf8))
        #expect(registration.rawId == Data([1, 2, 3]) && registration.response.attestationObject == Data([0xa0]))
        #expect(registration.response.clientDataJSON == Data("{}".utf8))
        #expect(registration.response.transports == ["usb", "future-transport"])
        #expect(registration.clientExtensionResults.credProps?.rk == false)
        #expect(VerifiedCredential.sanitizedTransports(["usb", "future-transport", "usb", "internal"]) == ["usb", "internal"])

        let minimal =
            #"{"id":"AQ","rawId":"AQ==","type":"public-key","response":{"clientDataJSON":"","attestationObject":"","transports":null}}"#
        let decoded = try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(minimal.utf8))
        #expect(decoded.rawId == Data([1]) && decoded.clientExtensionResults == .init() && decoded.response.transports == nil)

        let odd =
            #"{"id":"AQ","rawId":"AQ","type":"public-key","clientExtensionResults":{"credProps":7},"response":{"clientDataJSON":"","authenticatorData":"","signature":"","userHandle":""}}"#
        let assertion = try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: Data(odd.utf8))
        #expect(assertion.response.userHandle == nil && assertion.clientExtensionResults.credProps == nil)
        let nullHandle = odd.replacingOccurrences(of: #""userHandle":"""#, with: #""userHandle":null"#)
        #expect(try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: Data(nullHandle.utf8)).response.userHandle == nil)
    }

    @Test(arguments: [
        (#"{"id":"AQ","rawId":1,"type":"public-key","response":{}}"#, "malformed credential: rawId has the wrong type"),
        (
            #"{"id":"AQ","rawId":"AQ","type":"public-key","response":{"attestationObject":""}}"#,
            "malformed credential: response.clientDataJSON is missing"
        ),
        (#"{"id":"AQ","rawId":"A+Q","type":"public-key","response":{}}"#, "malformed credential: rawId is not base64url"),
        (#"{"id":"AQ","rawId":null,"type":"public-key","response":{}}"#, "malformed credential: rawId is null"),
        (
            #"{"id":"AQ","rawId":"AQ","type":"public-key","response":{"clientDataJSON":"","attestationObject":"","transports":[1]}}"#,
            "malformed credential: response.transports[0] has the wrong type"
        ),
        (#"[1]"#, "malformed credential: value has the wrong type"),
        (#"{"id":"#, "malformed credential: is not valid JSON"),
        ("", "malformed credential: is not valid JSON"),
    ])
    func badShapesAreMalformedWithoutQuotingTheInput(json: String, description: String) throws {
        let error = try #require(throws: WebAuthnError.self) {
            try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(json.utf8))
        }
        #expect(error.isMalformed && error.description == description)
    }

    @Test func hugeAndDeepInputIsAnErrorNotACrash() throws {
        let huge = String(repeating: "A", count: WebAuthnJSON.maximumBinaryLength + 4)
        let tooLong = #"{"id":"AQ","rawId":"\#(huge)","type":"public-key","response":{}}"#
        #expect(throws: WebAuthnError.malformed("credential", "rawId is too long")) {
            try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(tooLong.utf8))
        }
        let longID = #"{"id":"\#(String(repeating: "A", count: 3000))","rawId":"AQ","type":"public-key","response":{}}"#
        #expect(throws: WebAuthnError.malformed("credential", "id is too long")) {
            try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(longID.utf8))
        }
        let manyTransports =
            #"{"id":"AQ","rawId":"AQ","type":"public-key","response":{"clientDataJSON":"","attestationObject":"","transports":[\#(Array(repeating: "\"usb\"", count: 33).joined(separator: ","))]}}"#
        #expect(throws: WebAuthnError.self) { try WebAuthnJSON.decode(RegistrationResponseJSON.self, from: Data(manyTransports.utf8)) }
        let oversized = Data(repeating: 0x20, count: WebAuthnJSON.maximumDocumentLength + 1)
        #expect(throws: WebAuthnError.malformed("credential", "is larger than 262144 bytes")) {
            try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: oversized)
        }
        let deep = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect(throws: WebAuthnError.self) { try WebAuthnJSON.decode(AuthenticationResponseJSON.self, from: deep) }
        let deepClientData = Data((#"{"type":"#.utf8)) + Data(repeating: UInt8(ascii: "["), count: 50_000)
        #expect(throws: WebAuthnError.self) { try CollectedClientData(json: deepClientData) }
    }

    @Test func clientDataNeedsStringsAndBase64URLChallenge() throws {
        let good = try CollectedClientData(
            json: Data(
                #"{"type":"webauthn.get","challenge":"AQID","origin":"https://example.org","crossOrigin":true,"topOrigin":"https://example.com","extraData":"x"}"#
                    .utf8))
        #expect(good.challenge == Data([1, 2, 3]) && good.crossOrigin && good.topOrigin == "https://example.com")
        #expect(throws: WebAuthnError.malformed("clientDataJSON.challenge", "is not base64url")) {
            try CollectedClientData(json: Data(#"{"type":"webauthn.get","challenge":"A Q","origin":"o"}"#.utf8))
        }
        #expect(throws: WebAuthnError.malformed("clientDataJSON", "origin has the wrong type")) {
            try CollectedClientData(json: Data(#"{"type":"webauthn.get","challenge":"AQ","origin":1}"#.utf8))
        }
        #expect(throws: WebAuthnError.malformed("clientDataJSON", "is not valid JSON")) { try CollectedClientData(json: Data([0xff])) }
    }
}
