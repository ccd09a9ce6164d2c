import ContractEvolution
import ContractKit
import Testing

@Suite struct ContractDiffTests {
    /// A contract file `contracts/login.yaml` of these interactions (YAML list items).
    static func contract(_ interactions: String, file: String = "contracts/login.yaml") throws -> Contract {
        let (contract, problems) = ContractLoader.parse(yaml: "name: Login\ninteractions:\n" + interactions, file: file)
        #expect(problems == [])
        return try #require(contract)
    }

    /// The changes from one interaction written `old` to the same one written `new`.
    static func changes(_ old: String, _ new: String) throws -> [ContractChange] {
        ContractDiff.changes(old: [try contract(old)], new: [try contract(new)])
    }

    /// `path: impact` of each change, for compact expectations.
    static func summary(_ changes: [ContractChange]) -> [String] {
        changes.map { "\($0.path): \($0.impact.rawValue)" }
    }

    static func login(
        request: String = "{ username: alice, password: { match: string, min_length: 8, example: secret-password } }", response: String
    ) -> String {
        """
          - name: valid credentials
            request: { method: POST, path: /login, json: \(request) }
            response: \(response)

        """
    }

    static let token =
        "{ status: 200, json: { access_token: { match: jwt }, expires_in: { match: integer, min: 1, max: 3600 }, user: { id: { match: uuid }, name: alice } } }"

    @Test func removedIsBreakingAndAddedSafeEachWithItsLines() throws {
        let other = "  - name: logout\n    request: { method: POST, path: /logout }\n    response: { status: 204 }\n"
        let old = try Self.contract(Self.login(response: Self.token) + other)
        let new = try Self.contract(Self.login(response: Self.token))
        let removed = ContractDiff.changes(old: [old], new: [new])
        #expect(removed.map(\.kind) == [.removed])
        #expect(removed.first?.impact == .breaking)
        #expect(removed.first?.old == SourceLocation(file: "contracts/login.yaml", line: 6))
        #expect(removed.first?.new == nil)
        let added = ContractDiff.changes(old: [new], new: [old])
        #expect(added.map(\.kind) == [.added])
        #expect(added.first?.impact == .safe)
        #expect(added.first?.new?.description == "contracts/login.yaml:6")
    }

    @Test func interactionsMatchByFileNameAndInteractionNameNotByFolderOrPosition() throws {
        let a = "  - name: a\n    request: { method: GET, path: /a }\n    response: { status: 200 }\n"
        let b = "  - name: b\n    request: { method: GET, path: /b }\n    response: { status: 200 }\n"
        let old = try Self.contract(a + b, file: "old/login.yaml")
        let new = try Self.contract(b + a, file: "contracts/login.yaml")
        #expect(ContractDiff.changes(old: [old], new: [new]) == [])
        let elsewhere = try Self.contract(a + b, file: "contracts/other.yaml")
        let moved = ContractDiff.changes(old: [old], new: [elsewhere])
        #expect(moved.map(\.kind) == [.removed, .removed, .added, .added])
    }

    @Test func aStatusChangeBreaks() throws {
        let changes = try Self.changes(Self.login(response: "{ status: 200 }"), Self.login(response: "{ status: 201 }"))
        #expect(Self.summary(changes) == ["response status: breaking"])
        #expect(changes.first?.reason == "200 → 201")
    }

    @Test func aResponseKeyRemovedAtAnyDepthBreaksAndOneAddedIsSafeEvenWhenStrict() throws {
        let old = Self.login(response: Self.token)
        let removed = try Self.changes(old, Self.login(response: Self.token.replacingOccurrences(of: "id: { match: uuid }, ", with: "")))
        #expect(Self.summary(removed) == ["response $.user.id: breaking"])
        let added = try Self.changes(
            old, Self.login(response: Self.token.replacingOccurrences(of: "name: alice", with: "name: alice, admin: false")))
        #expect(Self.summary(added) == ["response $.user.admin: safe"])
        let strict = try Self.changes(
            old, Self.login(response: Self.token.replacingOccurrences(of: "status: 200,", with: "status: 200, strict: true,")))
        #expect(Self.summary(strict) == ["response strict: safe"])
    }

    @Test(arguments: [
        ("expires_in: { match: integer, min: 1, max: 3600 }", "expires_in: { match: string }"),  // changed type
        ("name: alice", "name: bob"),  // a literal changed
        ("access_token: { match: jwt }", "access_token: { match: string }"),  // widened
        ("id: { match: uuid }", "id: { match: regex, pattern: \"[0-9]+\" }"),  // not comparable
        ("expires_in: { match: integer, min: 1, max: 3600 }", "expires_in: { match: integer, min: 0, max: 3600 }"),  // bounds widened
        ("expires_in: { match: integer, min: 1, max: 3600 }", "expires_in: { match: integer, min: 60, max: 3600 }"),  // bounds narrowed
        ("expires_in: { match: integer, min: 1, max: 3600 }", "expires_in: { match: number, min: 1, max: 3600 }"),  // integer → number
    ])
    func anyResponseMatcherChangeBreaks(old: String, new: String) throws {
        let changes = try Self.changes(
            Self.login(response: Self.token), Self.login(response: Self.token.replacingOccurrences(of: old, with: new)))
        #expect(changes.count == 1)
        #expect(changes.first?.impact == .breaking)
        #expect(changes.first?.path.hasPrefix("response $.") == true)
    }

    @Test func aResponseStringNarrowedToAUUIDBreaksAndSaysWhy() throws {
        let old = Self.login(response: "{ status: 200, json: { id: { match: string } } }")
        let changes = try Self.changes(old, Self.login(response: "{ status: 200, json: { id: { match: uuid } } }"))
        #expect(Self.summary(changes) == ["response $.id: breaking"])
        #expect(changes.first?.reason.hasPrefix("a string → a UUID string (narrowed") == true)
    }

    @Test func requestFieldsAddedOrRemovedBreak() throws {
        let old = Self.login(response: "{ status: 200 }")
        let added = try Self.changes(
            old,
            Self.login(
                request: "{ username: alice, password: { match: string, min_length: 8, example: secret-password }, otp: \"123456\" }",
                response: "{ status: 200 }"))
        #expect(Self.summary(added) == ["request $.otp: breaking"])
        #expect(added.first?.reason.hasPrefix("required field added") == true)
        let removed = try Self.changes(old, Self.login(request: "{ username: alice }", response: "{ status: 200 }"))
        #expect(Self.summary(removed) == ["request $.password: breaking"])
    }

    @Test(arguments: [
        // (new password matcher, impact)
        ("{ match: string, min_length: 12, example: secret-password }", ContractChange.Impact.breaking),  // bounds narrowed
        ("{ match: regex, pattern: \"[a-z-]+\", example: secret-password }", .breaking),  // string → regex
        ("secret-password", .breaking),  // a literal now
        ("{ match: string, min_length: 1, example: secret-password }", .safe),  // bounds widened
        ("{ match: any, example: secret-password }", .safe),  // widened to anything
        ("{ match: integer, example: 1 }", .breaking),  // another type
        ("{ match: string, min_length: 8, example: another-password }", .safe),  // the example alone
    ])
    func requestMatchersNarrowedBreakAndWidenedAreSafe(password: String, impact: ContractChange.Impact) throws {
        let changes = try Self.changes(
            Self.login(response: "{ status: 200 }"),
            Self.login(request: "{ username: alice, password: \(password) }", response: "{ status: 200 }")
        )
        #expect(Self.summary(changes) == ["request $.password: \(impact.rawValue)"])
    }

    @Test func aRequestLiteralChangedBreaksAndOneWidenedToAMatcherIsSafe() throws {
        let old = Self.login(response: "{ status: 200 }")
        let changed = try Self.changes(
            old,
            Self.login(
                request: "{ username: bob, password: { match: string, min_length: 8, example: secret-password } }",
                response: "{ status: 200 }"))
        #expect(Self.summary(changed) == ["request $.username: breaking"])
        let widened = try Self.changes(
            old,
            Self.login(
                request:
                    "{ username: { match: string, example: alice }, password: { match: string, min_length: 8, example: secret-password } }",
                response: "{ status: 200 }")
        )
        #expect(Self.summary(widened) == ["request $.username: safe"])
    }

    @Test func responseHeadersRemovedOrChangedBreakAndAddedAreSafe() throws {
        let old = Self.login(response: "{ status: 200, headers: { Cache-Control: no-store, Pragma: no-cache } }")
        let changes = try Self.changes(
            old, Self.login(response: "{ status: 200, headers: { cache-control: private, X-Request-Id: { match: uuid } } }"))
        #expect(
            Self.summary(changes) == [
                "response header cache-control: breaking", "response header pragma: breaking", "response header x-request-id: safe",
            ]
        )
    }

    @Test func aMethodOrPathChangedBreaks() throws {
        let old = Self.login(response: "{ status: 200 }")
        let method = try Self.changes(old, old.replacingOccurrences(of: "method: POST", with: "method: PUT"))
        #expect(Self.summary(method) == ["request method: breaking"])
        let path = try Self.changes(old, old.replacingOccurrences(of: "path: /login", with: "path: /v2/login"))
        #expect(Self.summary(path) == ["request path: breaking"])
        #expect(path.first?.kind == .changed)
    }

    @Test func statesSavesAndExamplesAloneAreSafeAndListed() throws {
        let old = """
              - name: valid credentials
                given: [{ state: user exists }]
                request: { method: POST, path: /login, json: { username: alice } }
                response: { status: 200, json: { expires_in: { match: integer, example: 900 } } }
                save: { expiry: $.expires_in }

            """
        let new = """
              - name: valid credentials
                given: [{ state: user exists }, { state: user has totp }]
                request: { method: POST, path: /login, json: { username: alice } }
                response: { status: 200, json: { expires_in: { match: integer, example: 60 } } }
                save: { lifetime: $.expires_in }

            """
        let changes = try Self.changes(old, new)
        #expect(Self.summary(changes) == ["response $.expires_in: safe", "given: safe", "save: safe"])
        #expect(changes.map(\.reason) == ["example changed", "user exists → user exists, user has totp", "expiry → lifetime"])
    }

    @Test func eachComparesItsCountAndItsElements() throws {
        let old = Self.login(
            response: "{ status: 200, json: { sessions: { match: each, of: { id: { match: uuid }, current: { match: boolean } } } } }")
        let changes = try Self.changes(
            old, Self.login(response: "{ status: 200, json: { sessions: { match: each, min: 1, of: { id: { match: uuid } } } } }")
        )
        #expect(Self.summary(changes) == ["response $.sessions: breaking", "response $.sessions[*].current: breaking"])
    }

    @Test func theReportHasALineAChangeASummaryAndJSON() throws {
        let old = try Self.contract(Self.login(response: "{ status: 200 }"))
        let new = try Self.contract(Self.login(response: "{ status: 201 }"), file: "next/login.yaml")
        let report = ContractDiffReport(changes: ContractDiff.changes(old: [old], new: [new]))
        #expect(
            report.text == """
                breaking  contracts/login.yaml:3 → next/login.yaml:3  valid credentials: response status: 200 → 201
                1 change: 1 breaking, 0 safe (0 added, 0 removed, 1 changed)

                """
        )
        #expect(report.hasBreakingChanges)
        #expect(report.json["breaking"] == .bool(true))
        guard case .array(let entries)? = report.json["changes"], let entry = entries.first else {
            Issue.record("no changes in \(report.json)")
            return
        }
        #expect(entry["kind"] == "changed")
        #expect(entry["classification"] == "breaking")
        #expect(entry["old"]?["line"] == .integer(3))
        #expect(entry["new"]?["file"] == "next/login.yaml")
        #expect(entry["path"] == "response status")
        #expect(ContractDiffReport(changes: []).text == "no changes\n")
        #expect(!ContractDiffReport(changes: []).hasBreakingChanges)
    }
}
