import AuthCore
import AuthServer
import Foundation
import Testing

/// Form bodies decode as browsers and OAuth clients encode them.
@Suite struct FormRequestBodyTests {
    @Test func fieldsDecode() throws {
        let form = try FormRequestBody(Data("a=x+y%2Bz&b=%C3%A9&empty=&flag&&c=1=2".utf8))
        #expect(form.fields == ["a": "x y+z", "b": "é", "c": "1=2"])
        #expect(try form.required("a") == "x y+z")
        #expect(throws: AuthError.invalidRequest("empty is required")) { try form.required("empty") }
    }

    @Test(arguments: ["a=%", "a=%4", "a=%G1", "a=%FF", "%FF=1", "a=1&a=2"])
    func malformedFormsAreInvalidRequests(body: String) {
        #expect {
            try FormRequestBody(Data(body.utf8))
        } throws: { ($0 as? AuthError)?.code == .invalidRequest }
    }
}
