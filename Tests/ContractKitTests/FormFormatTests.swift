import ContractEvolution
import ContractKit
import ContractTestSupport
import Foundation
import Testing
import WebForms

/// `form:`, `multipart:` and `{ match: basic_auth }`: loading, what lint says, what verify
/// sends, what a response is checked for, writing back.
@Suite struct FormFormatTests {
    static let token = """
        name: OAuth
        interactions:
          - name: a client gets a token with its credentials
            request:
              method: POST
              path: /oauth/token
              headers:
                Authorization: { match: basic_auth, username: client-1, password: "s3cret pass" }
              form:
                grant_type: client_credentials
                scope: { match: string, example: "read write", optional: true }
                tries: { match: integer, min: 1, example: 2 }
            response:
              status: 200
              form:
                access_token: { match: string, min_length: 8, example: abcdefgh }
                token_type: Bearer
                state: { match: string, optional: true }
            save:
              token: response.form.access_token
              scope: request.form.scope
          - name: the token is introspected
            request:
              method: POST
              path: /oauth/introspect
              headers:
                Authorization: { match: basic_auth, username: "{{scope}}", password: { match: string, min_length: 4, example: pass } }
              form: { token: "{{token}}" }
            response: { status: 200, json: { active: true } }
          - name: an avatar is uploaded
            request:
              method: POST
              path: /avatar
              multipart:
                - name: file
                  filename: me.png
                  headers: { Content-Type: image/png }
                  body: "not really a png"
                - name: meta
                  json: { token: "{{token}}", size: { match: integer, example: 16 } }
            response: { status: 204 }
        """

    @Test func loadsFormsPartsAndBasicCredentials() throws {
        let contract = try loadContract(Self.token)
        let first = contract.interactions[0]
        let credentials = Matcher(
            .basicAuth(username: Matcher(.literal(.string("client-1"))), password: Matcher(.literal(.string("s3cret pass")))))
        #expect(first.request.headers.first?.value == credentials)
        guard case .form(let form) = first.request.body else {
            Issue.record("expected a form body, got \(first.request.body)")
            return
        }
        #expect(form.names == ["grant_type", "scope", "tries"])
        #expect(form.field("grant_type") == Matcher(.literal(.string("client_credentials"))))
        #expect(form.field("scope")?.optional == true)
        guard case .form(let response) = first.response.body else {
            Issue.record("expected a form response, got \(first.response.body)")
            return
        }
        #expect(response.names == ["access_token", "token_type", "state"])
        #expect(first.save["token"] == .responseForm("access_token"))
        #expect(first.save["scope"] == .requestForm("scope"))
        guard case .multipart(let parts) = contract.interactions[2].request.body else {
            Issue.record("expected multipart parts")
            return
        }
        #expect(parts.map(\.name) == ["file", "meta"])
        #expect(parts[0].filename == "me.png")
        #expect(contract.interactions[2].request.variables == ["token"])
        #expect(contract.interactions[1].request.variables == ["scope", "token"])
    }

    @Test func verifySendsAnEncodedFormAndBasicCredentials() throws {
        let contract = try loadContract(Self.token)
        let request = try contract.interactions[0].request.render(with: [:])
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == "grant_type=client_credentials&scope=read+write&tries=2")
        #expect(request.header("Authorization") == "Basic " + Data("client-1:s3cret pass".utf8).base64EncodedString())
        let decoded = try #require(BasicCredentials.decode(request.header("Authorization") ?? ""))
        #expect(decoded.username == "client-1" && decoded.password == "s3cret pass")

        // Saved values fill both the form and the credentials.
        let second = try contract.interactions[1].request.render(with: ["token": "a&b=c d", "scope": "client-2"])
        #expect(String(decoding: second.body ?? Data(), as: UTF8.self) == "token=a%26b%3Dc+d")
        #expect(BasicCredentials.decode(second.header("authorization") ?? "")?.username == "client-2")
        #expect(FormEncoding.decode(second.body ?? Data())?.first?.value == "a&b=c d")

        // A saved field comes from what was sent and what came back.
        let response = ContractResponse(
            status: 200, headers: [("Content-Type", FormBody.contentType)], body: Data("access_token=abcdefgh12&token_type=Bearer".utf8))
        let captured = contract.interactions[0].captures(request: request, response: response).values
        #expect(captured == ["token": "abcdefgh12", "scope": "read write"])
    }

    @Test func aFormResponseIsCheckedFieldByField() throws {
        let spec = try loadContract(Self.token).interactions[0].response
        func problems(_ body: String) -> [String] {
            spec.mismatches(in: ContractResponse(status: 200, headers: [], body: Data(body.utf8))).map(\.description)
        }
        #expect(problems("access_token=abcdefgh&token_type=Bearer&other=1") == [])
        #expect(
            problems("access_token=abc&token_type=Bearer") == [
                #"form access_token: expected a string of at least 8 characters, got string "abc""#
            ])
        #expect(
            problems("token_type=Bearer") == ["form access_token: expected a string of at least 8 characters, got nothing (field missing)"])
        #expect(
            problems("access_token=abcdefgh&token_type=Bearer&token_type=MAC") == [
                "form token_type: expected one value, got 2 values (the field is repeated)"
            ])
        #expect(
            problems("access_token=%ZZ") == [
                #"body: expected a form body (application/x-www-form-urlencoded), got text "access_token=%ZZ""#
            ])
        let strict = ResponseSpec(status: 200, body: spec.body, strict: true)
        #expect(
            strict.mismatches(
                in: ContractResponse(status: 200, headers: [], body: Data("access_token=abcdefgh&token_type=Bearer&x=1".utf8))
            ).map(\.description) == [
                "form x: expected no such field (strict), got a value"
            ])
    }

    @Test func verifySendsMultipartPartsWithABoundary() throws {
        let contract = try loadContract(Self.token)
        let request = try contract.interactions[2].request.render(with: ["token": "tok"])
        let contentType = try #require(request.header("Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary="))
        let boundary = try #require(MultipartEncoding.boundary(in: contentType))
        let parts = try MultipartEncoding.decode(request.body ?? Data(), boundary: boundary)
        #expect(parts.map(\.name) == ["file", "meta"])
        #expect(parts[0].filename == "me.png" && parts[0].header("content-type") == "image/png")
        #expect(String(decoding: parts[0].body, as: UTF8.self) == "not really a png")
        #expect(parts[1].header("Content-Type") == "application/json")
        #expect(try JSONValue(parsing: parts[1].body) == ["token": "tok", "size": 16])
    }

    @Test func theMultipartReaderRefusesMalformedBodiesWithAReason() {
        func reason(_ body: String, boundary: String = "b") -> String {
            do {
                _ = try MultipartEncoding.decode(Data(body.utf8), boundary: boundary)
                return "read"
            } catch {
                return "\(error)"
            }
        }
        #expect(reason("") == "no line --b opens the body")
        #expect(reason("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nunterminated") == "part 1 is not closed by --b")
        #expect(reason("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--") == "part 1 has no Content-Disposition: form-data; name=\"…\"")
        #expect(reason("--bX") == "a boundary line is not followed by a line break")
        #expect(reason("--b\r\nno end of headers") == "part 1 has no end of its headers within 16384 bytes")
        #expect(reason("--b--\r\n") == "read")
        let many = String(repeating: "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n", count: 300) + "--b--"
        #expect(reason(many) == "more than 256 parts")
        #expect(MultipartEncoding.boundary(in: "multipart/form-data; boundary=\"q r\"") == "q r")
        #expect(MultipartEncoding.boundary(in: "multipart/form-data") == nil)
        #expect(MultipartEncoding.boundary(in: "application/json; boundary=x") == nil)
    }

    @Test func basicCredentialsMismatchWithoutShowingThePassword() {
        let matcher = Matcher(.basicAuth(username: Matcher(.literal(.string("client-1"))), password: Matcher(.literal(.string("s3cret")))))
        #expect(matcher.mismatches(in: .string(BasicCredentials.header(username: "client-1", password: "s3cret"))) == [])
        #expect(matcher.mismatches(in: .string("bAsIc " + Data("client-1:s3cret".utf8).base64EncodedString())) == [])
        let wrong = matcher.mismatches(in: .string(BasicCredentials.header(username: "client-1", password: "guess123"))).map(\.description)
        #expect(wrong == ["$ password: expected the contract's password, got the password does not match"])
        #expect(!wrong.joined().contains("guess123"))
        #expect(
            matcher.mismatches(in: .string(BasicCredentials.header(username: "client-2", password: "s3cret"))).map(\.description) == [
                #"$ username: expected "client-1", got string "client-2""#
            ])
        let bearer = matcher.mismatches(in: "Bearer abc.def").map(\.description)
        #expect(bearer == ["$: expected HTTP Basic credentials (Basic base64(username:password)), got a value that is not (not shown)"])
        // The first colon splits: a password may hold colons.
        #expect(BasicCredentials.decode(BasicCredentials.header(username: "a", password: "b:c"))?.password == "b:c")
        #expect(BasicCredentials.decode("Basic !!!") == nil)
        #expect(matcher.summary == #"HTTP Basic credentials of username "client-1""#)
        #expect(Matcher.names.contains("basic_auth"))
    }

    @Test func writesBackWhatItRead() throws {
        let contract = try loadContract(Self.token)
        let text = try ContractYAML.contract(name: contract.name, interactions: contract.interactions)
        #expect(text.contains("match: basic_auth") && text.contains("form:") && text.contains("multipart:"), "\(text)")
        let again = try loadContract(text)
        #expect(again.interactions.map(\.request) == contract.interactions.map(\.request))
        #expect(again.interactions.map(\.response) == contract.interactions.map(\.response))
        #expect(again.interactions.map(\.save) == contract.interactions.map(\.save))
    }

    /// A contract whose request's body keys are `BODY`, from line 6 on.
    static func request(_ body: String) -> String {
        """
        name: T
        interactions:
          - name: one
            request:
              method: POST
              path: /oauth/token
        \(body)
            response: { status: 200 }
        """
    }

    @Test(arguments: [
        ("      form: { a: b }\n      json: { a: b }", "8: a request has one body: json, body, form or multipart, not several"),
        (
            "      headers: { Authorization: { match: basic_auth, password: x } }",
            #"7: matcher 'basic_auth' needs 'username' and 'password' (each a literal, a "{{saved}}" value or a matcher of text)"#
        ),
        (
            "      headers: { Authorization: { match: basic_auth, username: \"a:b\", password: x } }",
            "7: a basic_auth username cannot hold ':' (RFC 7617), not 'a:b'"
        ),
        (
            "      headers: { Authorization: { match: basic_auth, username: { match: each, of: 1 }, password: x } }",
            "7: the basic_auth username must be text or a matcher of text, not an array of 1"
        ),
        ("      form: { a: { b: c } }", "7: form field 'a' must be text or a matcher of text, not an object"),
        ("      form: { a: \"{{nope}}\" }", "7: undefined variable 'nope' (no variable is saved before this interaction)"),
        ("      multipart:\n        - name: a", "8: multipart part 'a' needs body (text) or json"),
        ("      multipart: { a: b }", "7: multipart must be a list of parts, each with name and body or json"),
        (
            "      multipart:\n        - name: a\n          body: x\n          json: {}",
            "8: multipart part 'a' has either body or json, not both"
        ),
    ])
    func lintNamesEachBrokenBodyWithItsLine(body: String, expected: String) {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.request(body), file: "form.yaml")
        #expect(contract == nil)
        #expect(diagnostics.map { "\($0.line): \($0.message)" } == [expected])
    }

    @Test func savingAFormFieldNeedsThatField() {
        let yaml = """
            name: T
            interactions:
              - name: one
                request: { method: POST, path: /x, form: { a: b } }
                response: { status: 200, json: { c: d } }
                save:
                  x: request.form.nope
                  y: response.form.c
            """
        let (_, diagnostics) = ContractLoader.parse(yaml: yaml, file: "form.yaml")
        #expect(
            diagnostics.map { "\($0.line): \($0.message)" } == [
                "7: the request has no form field 'nope'", "8: saving response.form.c needs a form response body",
            ])
    }

    @Test func formEncodingFollowsTheWHATWGRules() {
        #expect(FormEncoding.encode([("a b", "x+y/z~*"), ("é", "")]) == "a+b=x%2By%2Fz%7E*&%C3%A9=")
        #expect(FormEncoding.decode(Data("a+b=x%2By&%C3%A9=&flag".utf8))?.map { "\($0.name)=\($0.value)" } == ["a b=x+y", "é=", "flag="])
        #expect(FormEncoding.decode(Data("a=%G1".utf8)) == nil)
        // Empty pairs are skipped; a name ends at the first `=`; hex digits in either case.
        #expect(FormEncoding.decode(Data("&&=x&a=b=c&&d=%c3%A9&".utf8))?.map { "\($0.name)=\($0.value)" } == ["=x", "a=b=c", "d=é"])
        #expect(FormEncoding.decode(Data())?.isEmpty == true)
        // A `%` without two hex digits after it, or bytes that are not UTF-8, before or after unescaping.
        for bad in [
            Data("a=%4".utf8), Data("a=b%".utf8), Data("a%=b".utf8), Data("a=%FF".utf8), Data([0x61, 0x3D, 0xC3]),
            Data([0x61, 0x3D, 0xC3]) + Data("%A9".utf8),
        ] {
            #expect(FormEncoding.decode(bad) == nil, "\(Array(bad))")
        }
        #expect(FormEncoding.unescape("x%2By+z") == "x+y z")
        #expect(FormEncoding.unescape("%E2%9C") == nil)
        #expect(FormEncoding.isForm(contentType: "Application/X-WWW-Form-Urlencoded; charset=UTF-8"))
        #expect(!FormEncoding.isForm(contentType: "application/json"))
        // The media type alone: lower-cased, without parameters, spaces or tabs.
        #expect(FormEncoding.mediaType(of: " \tMultipart/Form-Data ; boundary=X") == "multipart/form-data")
        #expect(FormEncoding.mediaType(of: "text/plain") == "text/plain")
        #expect(FormEncoding.mediaType(of: "") == "")
        #expect(FormEncoding.mediaType(of: nil) == nil)
    }

    @Test func aChangedPasswordOrFieldBreaksClients() throws {
        let old = try loadContract(Self.token)
        let changed = Self.token.replacingOccurrences(of: "\"s3cret pass\"", with: "other").replacingOccurrences(
            of: "grant_type: client_credentials", with: "grant_type: password")
        let new = try loadContract(changed)
        let changes = InteractionDiff(file: "t.yaml", old: old.interactions[0], new: new.interactions[0]).changes
        #expect(changes.map(\.path).sorted() == ["request form.grant_type", "request header authorization"])
        #expect(changes.allSatisfy { $0.impact == .breaking })
    }

    @Test func anOptionalResponseFieldNeverSeenAbsentIsAnUnseenVariant() throws {
        let response = try loadContract(Self.token).interactions[0].response
        var coverage = VariantCoverage()
        let body = FormBody.object(of: Data("access_token=abcdefgh&token_type=Bearer&state=x".utf8))
        coverage.observe(response, in: body, site: "POST /oauth/token 200", location: SourceLocation(file: "t.yaml", line: 3))
        #expect(coverage.unseen.map(\.description) == ["POST /oauth/token 200 $.state: never absent (t.yaml:3)"])
    }

    @Test func theMultipartReaderSurvivesRandomAndCutBodies() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("-\r\nb:;=\"aContent-Disposition: form-data; name=".utf8)
        for _ in 0..<300 {
            let bytes = (0..<Int.random(in: 0..<120, using: &generator)).map { _ in
                alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
            }
            _ = try? MultipartEncoding.decode(Data(bytes), boundary: "b")
        }
        let request = try loadContract(Self.token).interactions[2].request.render(with: ["token": "t"])
        let body = try #require(request.body)
        let boundary = try #require(MultipartEncoding.boundary(in: request.header("Content-Type")))
        for length in 0..<body.count {
            // Every cut of a good body is refused, but the one that only loses the last line break.
            let parts = try? MultipartEncoding.decode(body.prefix(length), boundary: boundary)
            #expect(parts == nil || length >= body.count - 2, "read a body cut at \(length)")
        }
    }
}
