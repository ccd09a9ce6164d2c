import AuthServer
import AuthTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct RequestErrorTests {
    @Test(arguments: [
        (#"{"username": "alice""#, "The request body is not valid JSON."),
        ("", "The request body is not valid JSON."),
        (#"["alice", "pw"]"#, "The request body must be a JSON object."),
        (#""alice""#, "The request body must be a JSON object."),
        (#"{"password": "pw"}"#, "username is required"),
        (#"{"username": "alice"}"#, "password is required"),
        (#"{"username": null, "password": "pw"}"#, "username must not be null"),
        (#"{"username": "alice", "password": null}"#, "password must not be null"),
        (#"{"username": 42, "password": "pw"}"#, "username must be a string, not a number"),
        (#"{"username": "alice", "password": true}"#, "password must be a string, not a boolean"),
        (#"{"username": ["alice"], "password": "pw"}"#, "username must be a string, not an array"),
        (#"{"username": "alice", "password": {"p": 1}}"#, "password must be a string, not an object"),
        (#"{"username": "", "password": "pw"}"#, "username must not be empty"),
        (#"{"username": "alice", "password": ""}"#, "password must not be empty"),
        (#"{"username": "al\u0000ice", "password": "pw"}"#, "username must not contain control characters"),
        (#"{"username": "alice", "password": "pass\u0000word"}"#, "password must not contain NUL characters"),
        (#"{"username": "alice", "password": "pw", "remember_me": true}"#, "remember_me is not a field of this request"),
        (#"{"username": "alice", "password": "pw", "Username": "bob"}"#, "Username is not a field of this request"),
    ])
    func malformedBodiesAreInvalidRequests(body: String, description: String) async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let response = try await client.postJSON("/login", body)
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "invalid_request")
            #expect(try response.error().description == description)
            #expect(response.headers[.cacheControl] == "no-store")
        }
    }

    @Test func passwordsOverTheLimitAreRefusedBeforeAnyHashing() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let response = try await client.login("alice", String(repeating: "p", count: 1025))
            #expect(response.status == .badRequest)
            #expect(try response.error().description == "password must be at most 1024 characters")
            #expect(try await client.login("alice", String(repeating: "p", count: 1024)).status == .unauthorized)
        }
    }

    @Test func bodiesOver64KiBAreTooLarge() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let padding = String(repeating: "x", count: 64 * 1024)
            let response = try await client.postJSON("/login", #"{"username": "alice", "password": "pw", "pad": "\#(padding)"}"#)
            #expect(response.status == .contentTooLarge)
            #expect(try response.error().code == "request_too_large")
            #expect(response.headers[.cacheControl] == "no-store")
        }
    }

    @Test(arguments: [nil, "text/plain", "application/x-www-form-urlencoded", "application/jsonp"])
    func nonJSONBodiesAreUnsupported(contentType: String?) async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            var headers = HTTPFields()
            if let contentType { headers[.contentType] = contentType }
            let response = try await client.postJSON("/login", #"{"username": "a", "password": "b"}"#, headers: headers)
            #expect(response.status == .unsupportedMediaType)
            #expect(try response.error().code == "unsupported_media_type")
        }
    }

    @Test(arguments: [
        "application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json", " \tAPPLICATION/json \t; charset=utf-8",
    ])
    func jsonMediaTypesWithParametersAreAccepted(contentType: String) async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let response = try await client.postJSON("/login", #"{"username": "a", "password": "b"}"#, headers: [.contentType: contentType])
            #expect(response.status == .unauthorized)
        }
    }

    @Test(arguments: [
        ("/login", HTTPRequest.Method.get, "POST"),
        ("/login", .put, "POST"),
        ("/.well-known/jwks.json", .post, "GET"),
        ("/health/live", .delete, "GET"),
        ("/health/ready", .patch, "GET"),
    ])
    func wrongMethodsAreNotAllowed(path: String, method: HTTPRequest.Method, allow: String) async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let response = try await client.execute(uri: path, method: method)
            #expect(response.status == .methodNotAllowed)
            #expect(response.headers[.allow] == allow)
            #expect(try response.error().code == "method_not_allowed")
        }
    }

    @Test(arguments: ["/", "/logins", "/login/extra", "/.well-known/webfinger"])
    func unknownPathsAreNotFound(path: String) async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let response = try await client.execute(uri: path, method: .get)
            #expect(response.status == .notFound)
            #expect(try response.error().code == "not_found")
            #expect(response.headers[.cacheControl] == "no-store")
        }
    }

    @Test func deeplyNestedJSONIsRefusedCleanly() async throws {
        let fixture = try await ServerFixture()
        try await fixture.test { client async throws in
            let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
            let response = try await client.postJSON("/login", #"{"username": \#(deep), "password": "pw"}"#)
            #expect(response.status == .badRequest)
        }
    }
}
