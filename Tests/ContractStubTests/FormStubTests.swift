import ContractKit
import ContractStub
import Foundation
import Testing
import WebForms

/// The stub on `form:`, `multipart:` and `basic_auth`: what it accepts, what it refuses and
/// why (never showing a password), and what it answers.
@Suite struct FormStubTests {
    static let oauth = """
        name: OAuth
        interactions:
          - name: a client gets a token
            request:
              method: POST
              path: /oauth/token
              headers:
                Authorization: { match: basic_auth, username: client-1, password: s3cret }
              form:
                grant_type: client_credentials
                scope: { match: string, optional: true }
            response:
              status: 200
              form:
                access_token: { match: string, min_length: 16 }
                token_type: Bearer
            save: { token: response.form.access_token }
          - name: the token is revoked
            request:
              method: POST
              path: /oauth/revoke
              headers:
                Authorization: { match: basic_auth, username: client-1, password: s3cret }
              form: { token: "{{token}}" }
            response: { status: 200 }
          - name: a note with an attachment
            request:
              method: POST
              path: /notes
              multipart:
                - name: text
                  body: { match: string, min_length: 1 }
                - name: attachment
                  filename: a.txt
                  body: hello
                - name: meta
                  json: { pinned: { match: boolean } }
            response: { status: 201 }
        """

    static let basic = "Basic " + Data("client-1:s3cret".utf8).base64EncodedString()

    static func form(_ path: String, _ body: String, authorization: String? = basic, contentType: String = FormBody.contentType)
        -> ContractRequest
    {
        var headers: [(name: String, value: String)] = [("Content-Type", contentType)]
        if let authorization { headers.append(("Authorization", authorization)) }
        return ContractRequest(method: "POST", target: path, headers: headers, body: Data(body.utf8))
    }

    func difference(_ stub: ContractStub, _ request: ContractRequest) -> String {
        let before = stub.unmatched.count
        #expect(stub.respond(to: request).status == 501)
        guard stub.unmatched.count > before, let last = stub.unmatched.last else { return "" }
        return last.difference
    }

    @Test func acceptsAMatchingFormAndAnswersWithAForm() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.oauth)])
        let response = stub.respond(to: Self.form("/oauth/token", "grant_type=client_credentials&scope=read+write"))
        #expect(response.status == 200)
        #expect(response.header("content-type") == FormBody.contentType)
        let fields = try #require(FormEncoding.decode(response.body))
        #expect(fields.map(\.name) == ["access_token", "token_type"])
        #expect(fields[1].value == "Bearer")
        let token = fields[0].value
        #expect(token.count >= 16)
        // The saved token is the one the revocation takes; an optional field may be absent.
        #expect(difference(stub, Self.form("/oauth/revoke", "token=another-token")).contains("form token"))
        let encoded = FormEncoding.encode([("token", token)])
        #expect(stub.respond(to: Self.form("/oauth/revoke", encoded)).status == 200)
        #expect(stub.respond(to: Self.form("/oauth/token", "grant_type=client_credentials")).status == 200)
    }

    /// A field's value too long to read (a probe's 10,000-character string) is shown cut, as
    /// a JSON body's is, not echoed whole.
    @Test func aLongFieldIsShownCut() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.oauth)])
        let long = String(repeating: "x", count: 10_000)
        #expect(
            difference(stub, Self.form("/oauth/token", "grant_type=\(long)"))
                == "form grant_type: expected client_credentials, got \(String(repeating: "x", count: 77))…")
    }

    @Test func refusesFormsThatBreakTheContractSayingWhy() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.oauth)])
        #expect(
            difference(stub, Self.form("/oauth/token", "grant_type=password"))
                == "form grant_type: expected client_credentials, got password")
        #expect(difference(stub, Self.form("/oauth/token", "scope=x")) == "form grant_type: missing")
        // As an OAuth server reads a form (RFC 6749 §3.1): an unlisted field is ignored, one without a value is omitted.
        #expect(stub.respond(to: Self.form("/oauth/token", "grant_type=client_credentials&extra=1")).status == 200)
        #expect(difference(stub, Self.form("/oauth/token", "grant_type=&scope=x")) == "form grant_type: missing")
        #expect(
            difference(stub, Self.form("/oauth/token", "grant_type=client_credentials&grant_type=client_credentials"))
                == "form grant_type: sent 2 times, the contract's request has it once")
        #expect(
            difference(stub, Self.form("/oauth/token", #"{"grant_type":"client_credentials"}"#, contentType: "application/json"))
                == "body: expected a form (Content-Type: application/x-www-form-urlencoded), got Content-Type: application/json")
        #expect(
            difference(stub, Self.form("/oauth/token", "grant_type=%ZZ")).hasPrefix("body: expected a form, got 14 bytes that are no form"))
    }

    @Test func checksBasicCredentialsWithoutShowingThePassword() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.oauth)])
        let wrong = "Basic " + Data("client-1:hunter2".utf8).base64EncodedString()
        let reason = difference(stub, Self.form("/oauth/token", "grant_type=client_credentials", authorization: wrong))
        #expect(reason == "header Authorization: the password does not match")
        let response = stub.respond(to: Self.form("/oauth/token", "grant_type=client_credentials", authorization: wrong))
        #expect(!String(decoding: response.body, as: UTF8.self).contains("hunter2"))
        #expect(!String(decoding: response.body, as: UTF8.self).contains(Data("client-1:hunter2".utf8).base64EncodedString()))
        let otherUser = "basic " + Data("client-2:s3cret".utf8).base64EncodedString()
        #expect(
            difference(stub, Self.form("/oauth/token", "grant_type=client_credentials", authorization: otherUser))
                == "header Authorization username: expected client-1, got client-2")
        #expect(
            difference(stub, Self.form("/oauth/token", "grant_type=client_credentials", authorization: "Bearer x")).hasSuffix(
                "got a value that is not (not shown)"))
        #expect(
            difference(stub, Self.form("/oauth/token", "grant_type=client_credentials", authorization: nil))
                == "header Authorization: missing")
        // The scheme is case-insensitive.
        #expect(
            stub.respond(
                to: Self.form(
                    "/oauth/token", "grant_type=client_credentials",
                    authorization: "BASIC " + Data("client-1:s3cret".utf8).base64EncodedString())
            ).status == 200)
    }

    static func multipart(_ parts: [MultipartEncoding.Part], boundary: String = "xyz") -> ContractRequest {
        ContractRequest(
            method: "POST", target: "/notes", headers: [("Content-Type", MultipartEncoding.contentType(boundary: boundary))],
            body: MultipartEncoding.encode(parts, boundary: boundary))
    }

    static let goodParts = [
        MultipartEncoding.Part(name: "text", body: Data("remember the milk".utf8)),
        MultipartEncoding.Part(
            name: "attachment", filename: "a.txt", headers: [.init(name: "Content-Type", value: "text/plain")], body: Data("hello".utf8)),
        MultipartEncoding.Part(
            name: "meta", headers: [.init(name: "Content-Type", value: "application/json")], body: Data(#"{"pinned": true}"#.utf8)),
    ]

    @Test func matchesMultipartPartsByName() throws {
        let stub = try ContractStub(contracts: [try loadContract(Self.oauth)])
        #expect(stub.respond(to: Self.multipart(Self.goodParts)).status == 201)
        #expect(stub.respond(to: Self.multipart(Self.goodParts.reversed())).status == 201)
        var parts = Self.goodParts
        parts[1].body = Data("bye".utf8)
        #expect(difference(stub, Self.multipart(parts)) == "multipart part attachment body: expected hello, got bye")
        parts = Self.goodParts
        parts[1].filename = "b.txt"
        #expect(difference(stub, Self.multipart(parts)) == "multipart part attachment: expected filename a.txt, got b.txt")
        parts = Self.goodParts
        parts[2].body = Data(#"{"pinned": "yes"}"#.utf8)
        #expect(difference(stub, Self.multipart(parts)).contains("pinned"))
        #expect(difference(stub, Self.multipart(Array(Self.goodParts.dropFirst()))) == "multipart part text: missing")
        #expect(
            difference(stub, Self.multipart(Self.goodParts + [Self.goodParts[0]]))
                == "multipart part text: sent 2 times, the contract's request has it once")
        // Malformed bodies are refused with a reason, never a crash.
        let broken = ContractRequest(
            method: "POST", target: "/notes", headers: [("Content-Type", "multipart/form-data; boundary=xyz")],
            body: Data("--xyz\r\nno end".utf8))
        #expect(difference(stub, broken).hasPrefix("body: not a multipart body: part 1 has no end of its headers"))
        let noBoundary = ContractRequest(method: "POST", target: "/notes", headers: [("Content-Type", "multipart/form-data")], body: Data())
        #expect(difference(stub, noBoundary) == "body: expected multipart/form-data with a boundary, got Content-Type: multipart/form-data")
    }
}
