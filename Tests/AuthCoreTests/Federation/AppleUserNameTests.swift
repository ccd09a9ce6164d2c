import AuthCore
import Testing

/// The name in Sign in with Apple's `user` JSON, as the browser posts it.
@Suite struct AppleUserNameTests {
    @Test func theFullNameIsTakenAndNothingElse() {
        #expect(AppleUserName.parse(#"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"a@example.com"}"#) == "Ada Lovelace")
        #expect(AppleUserName.parse(#"{"name":{"firstName":"Ada"}}"#) == "Ada")
        #expect(AppleUserName.parse(#"{"email":"a@example.com"}"#) == nil)
        #expect(AppleUserName.parse(#"{"name":{"firstName":" "}}"#) == nil)
        #expect(AppleUserName.parse("not json") == nil)
        #expect(AppleUserName.parse(nil) == nil)
    }

    @Test func controlCharactersGoAndTheLengthIsBounded() {
        #expect(AppleUserName.parse(#"{"name":{"firstName":"Ada\u0000\n","lastName":"L"}}"#) == "Ada L")
        let long = String(repeating: "x", count: 1000)
        #expect(AppleUserName.parse(#"{"name":{"firstName":"\#(long)"}}"#)?.count == AppleUserName.maxLength)
        #expect(AppleUserName.parse(#"{"name":{"firstName":"\#(String(repeating: "y", count: 5000))"}}"#) == nil)
    }
}
