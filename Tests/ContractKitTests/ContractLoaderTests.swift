import ContractKit
import Foundation
import ProcessKit
import Testing

@Suite struct ContractLoaderTests {
    static let login = """
        name: Login
        interactions:
          - name: valid credentials return a bearer token
            given:
              - state: user exists
                params: { username: alice, password: "correct horse battery staple" }
            request:
              method: POST
              path: /login
              headers: { Content-Type: application/json }
              json: { username: alice, password: "correct horse battery staple" }
            response:
              status: 200
              headers: { Cache-Control: no-store }
              json:
                access_token: { match: jwt }
                token_type: Bearer
                expires_in: { match: integer, min: 1, example: 900 }
                refresh_token: { match: string, min_length: 32 }
            save:
              refresh: $.refresh_token
          - name: the saved refresh token can be used once
            request:
              method: post
              path: /token/refresh
              query: { verbose: 1 }
              json: { refresh_token: "{{refresh}}" }
            response:
              status: 200
              strict: true
              json:
                items: { match: each, of: { match: uuid }, min: 1 }
        """

    @Test func loadsTheDesignExample() throws {
        let (contract, diagnostics) = ContractLoader.parse(yaml: Self.login, file: "login.yaml")
        #expect(diagnostics == [])
        let loaded = try #require(contract)
        #expect(loaded.name == "Login")
        #expect(loaded.interactions.count == 2)
        let first = loaded.interactions[0]
        #expect(first.location == SourceLocation(file: "login.yaml", line: 3))
        #expect(
            first.given == [
                ProviderStateUse(
                    state: "user exists", params: ["username": .string("alice"), "password": .string("correct horse battery staple")])
            ])
        #expect(first.request.method == "POST")
        #expect(
            first.request.body
                == .json(.literal(.object(["username": .string("alice"), "password": .string("correct horse battery staple")]))))
        #expect(first.response.headers["cache-control"] == Matcher(.literal(.string("no-store"))))
        guard case .json(let body) = first.response.body, case .object(let members) = body.kind else {
            Issue.record("expected a JSON object matcher")
            return
        }
        #expect(members["expires_in"] == Matcher(.integer(min: 1, max: nil), example: .integer(900)))
        #expect(members["token_type"] == Matcher(.literal(.string("Bearer"))))
        #expect(first.save["refresh"] == .responseBody(try JSONPath("$.refresh_token")))

        let second = loaded.interactions[1]
        #expect(second.request.method == "POST")
        #expect(second.request.query.map(\.name) == ["verbose"])
        #expect(second.request.variables == ["refresh"])
        #expect(second.response.strict)
    }

    /// Every problem is reported, with its line, in one pass.
    @Test func reportsEveryProblemWithItsLine() {
        let broken = """
            name: Broken
            colour: blue
            interactions:
              - name: one
                request:
                  method: POST
                  path: login
                  json: { token: "{{nope}}" }
                response:
                  status: 200
                  json:
                    a: { match: strng }
                    b: { match: regex, pattern: "([a-z" }
                    c: { match: integer, minimum: 1 }
                    d: { match: integer, example: "x" }
                    e: { match: each }
                save:
                  x: access_token
              - name: two
                request: { method: GET }
                response: { status: 999 }
            """
        let (contract, diagnostics) = ContractLoader.parse(yaml: broken, file: "broken.yaml")
        #expect(contract == nil)
        let lines = diagnostics.map { "\($0.line): \($0.message)" }
        let expected = [
            "2: unknown key 'colour' in a contract file (allowed: name, interactions)",
            "7: path must start with '/', or be one saved URL ('{{token_endpoint}}')",
            "8: undefined variable 'nope' (no variable is saved before this interaction)",
            "12: unknown matcher 'strng' (expected one of: string, integer, number, boolean, null, any, regex, uuid, datetime, jwt, jwks, each, one_of, totp, webauthn_registration, webauthn_assertion, basic_auth, pkce_s256, at_hash, form_post)",
            "14: unknown key 'minimum' in matcher 'integer' (allowed: match, example, min, max, optional)",
            "15: example does not match its matcher: $: expected an integer, got string \"x\"",
            "16: matcher 'each' needs 'of' (the matcher for every element)",
            "18: invalid source for 'x': 'access_token' is neither a JSON path ($.a.b) nor request.json…, request.path.NAME, request.query.NAME, request.headers.NAME, request.form.NAME, response.headers.NAME, response.form.NAME, response.location(.query.NAME), response.html.SELECTOR@ATTRIBUTE or response.cookies.NAME",
            "20: request needs 'path'",
            "21: status must be from 100 to 599",
        ]
        for line in expected {
            #expect(lines.contains(line), "missing: \(line)\nall: \(lines)")
        }
        #expect(lines.contains { $0.hasPrefix("13: invalid regular expression '([a-z'") })
        #expect(diagnostics.allSatisfy { $0.file == "broken.yaml" && $0.description.hasPrefix("broken.yaml:\($0.line):") })
    }

    /// A value saved from a request header must name a header the request sends; the
    /// name is compared as HTTP compares header names, whatever the case of its letters.
    @Test func aValueSavedFromARequestHeaderNeedsThatHeader() {
        let yaml = """
            name: Saved headers
            interactions:
              - name: traced
                request:
                  method: GET
                  path: /items
                  headers: { X-Trace-Id: abc }
                response: { status: 200 }
                save:
                  trace: request.headers.x-trace-id
                  missing: request.headers.x-span-id
            """
        let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "saved.yaml")
        #expect(contract == nil)
        #expect(diagnostics.map(\.message) == ["the request has no header 'x-span-id'"])
    }

    @Test(arguments: [
        ("name: [unclosed\n", 2),
        ("name: x\ninteractions:\n  - name: a\n   bad indent: 1\n", 4),
        ("", 0),
        ("- just\n- a list\n", 1),
        ("name: x\ninteractions: []\n", 2),
    ])
    func malformedFilesAreDiagnosedNotCrashed(yaml: String, line: Int) {
        let (contract, diagnostics) = ContractLoader.parse(yaml: yaml, file: "f.yaml")
        #expect(contract == nil)
        #expect(!diagnostics.isEmpty)
        #expect(diagnostics.first?.line == line)
        if yaml.hasPrefix("name: [") {
            #expect(diagnostics.first?.message.contains("while parsing a flow sequence started at line 1") == true)
        }
    }

    @Test func laterInteractionsMayUseSavedVariablesOnly() {
        let yaml = """
            name: Order
            interactions:
              - name: uses before saving
                request: { method: GET, path: "/items/{{id}}" }
                response: { status: 200 }
              - name: saves
                request: { method: GET, path: /items }
                response: { status: 200, json: { id: { match: string } } }
                save: { id: $.id }
              - name: uses after saving
                request: { method: GET, path: "/items/{{id}}", headers: { X-Trace: "{{id}}" } }
                response: { status: 200 }
            """
        let (_, diagnostics) = ContractLoader.parse(yaml: yaml, file: "order.yaml")
        #expect(diagnostics.map(\.line) == [4])
    }

    @Test func loadsADirectoryWithItsProviderConfiguration() throws {
        let temporary = try TemporaryFolder("contracts")
        defer { temporary.remove() }
        let directory = temporary.url
        try Self.login.write(to: directory.appendingPathComponent("login.yaml"), atomically: true, encoding: .utf8)
        try """
        provider:
          command: authd serve --port {{port}}
          ready: /health/ready
          base_url: http://127.0.0.1:{{port}}
        states:
          user exists:
            command: authd user add {{username}} --password-stdin
            stdin: "{{password}}"
          nothing:
            url: http://127.0.0.1:9/state
        """.write(to: directory.appendingPathComponent("contract.yaml"), atomically: true, encoding: .utf8)
        let suite = ContractLoader.load(directory: directory.path)
        #expect(suite.diagnostics == [])
        #expect(suite.contracts.map(\.name) == ["Login"])
        let provider = try #require(suite.provider)
        #expect(provider.ready == "/health/ready")
        #expect(provider.command == Template("authd serve --port {{port}}"))
        #expect(
            provider.states["user exists"]
                == .command(Template("authd user add {{username}} --password-stdin"), stdin: Template("{{password}}")))
        #expect(provider.states["nothing"] == .url(Template("http://127.0.0.1:9/state")))
    }

    @Test func unknownStatesAndBrokenProviderFilesAreReported() throws {
        let temporary = try TemporaryFolder("contracts")
        defer { temporary.remove() }
        let directory = temporary.url
        try Self.login.write(to: directory.appendingPathComponent("login.yaml"), atomically: true, encoding: .utf8)
        try "states:\n  someone else: { command: \"true\" }\n".write(
            to: directory.appendingPathComponent("contract.yaml"), atomically: true, encoding: .utf8)
        let suite = ContractLoader.load(directory: directory.path)
        #expect(suite.diagnostics.map(\.message) == ["unknown provider state 'user exists' (contract.yaml defines: someone else)"])
        #expect(suite.diagnostics.first?.line == 3)

        try "provider:\n  ready: health\n  port: 1\nstates:\n  s: { command: a, url: b }\n".write(
            to: directory.appendingPathComponent("contract.yaml"), atomically: true, encoding: .utf8)
        let broken = ContractLoader.load(directory: directory.path)
        #expect(broken.diagnostics.map(\.line) == [2, 3, 5])
    }

    @Test func anEmptyOrMissingDirectoryIsAProblem() {
        #expect(ContractLoader.load(directory: "/nonexistent-contracts").diagnostics.count == 1)
    }
}

@Suite struct ContractLoaderRobustnessTests {
    /// Every truncation and every single-line deletion of a valid file either loads or is
    /// diagnosed with a line inside the file; none crashes the loader.
    @Test func damagedFilesNeverCrashTheLoader() {
        let text = ContractLoaderTests.login
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var variants: [String] = []
        for cut in stride(from: 0, to: text.count, by: 7) {
            variants.append(String(text.prefix(cut)))
        }
        for index in lines.indices {
            var copy = lines
            copy.remove(at: index)
            variants.append(copy.joined(separator: "\n"))
            copy = lines
            copy[index] = "  " + copy[index] + " :"
            variants.append(copy.joined(separator: "\n"))
        }
        var diagnosed = 0
        for variant in variants {
            let (contract, diagnostics) = ContractLoader.parse(yaml: variant, file: "v.yaml")
            #expect((contract == nil) != diagnostics.isEmpty)
            if !diagnostics.isEmpty { diagnosed += 1 }
            #expect(diagnostics.allSatisfy { $0.line <= lines.count + 1 })
        }
        #expect(diagnosed > variants.count / 2)
    }
}
