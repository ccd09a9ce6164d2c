import ContractKit
import Foundation
import Testing

@Suite struct JSONValueParsingTests {
    static func parse(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Data(text.utf8))
    }

    @Test(arguments: [
        ("null", JSONValue.null),
        (" true ", .bool(true)),
        ("false", .bool(false)),
        ("900", .integer(900)),
        ("-17", .integer(-17)),
        ("-0", .integer(0)),
        ("9223372036854775807", .integer(Int.max)),
        ("9223372036854775808", .number(9_223_372_036_854_775_808)),
        ("1.0", .number(1)),
        ("0.5", .number(0.5)),
        ("-2.5e3", .number(-2500)),
        ("1E2", .number(100)),
        ("1e-2", .number(0.01)),
        (#""plain""#, .string("plain")),
        (#""""#, .string("")),
        (#""a\"b\\c\/d\b\f\n\r\t""#, .string("a\"b\\c/d\u{8}\u{c}\n\r\t")),
        (#""caf\u00e9 \u00E9""#, .string("café é")),
        (#""\ud83d\ude00""#, .string("😀")),
        (#""grüße 😀""#, .string("grüße 😀")),
        ("\u{FEFF}[1]", .array([.integer(1)])),
        ("[]", .array([])),
        ("{}", .object([:])),
        (" [ 1 , \"two\" , [ null ] , { } ] ", .array([.integer(1), .string("two"), .array([.null]), .object([:])])),
        (#"{"a": {"b": [true, 1.5]}, "c": "d"}"#, .object(["a": .object(["b": .array([.bool(true), .number(1.5)])]), "c": .string("d")])),
        (#"{"a": 1, "a": 2}"#, .object(["a": .integer(2)])),
    ])
    func parsesEachKindOfValue(text: String, expected: JSONValue) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test(arguments: [
        ("", "JSON ends early at byte 0"),
        ("{", "JSON ends early at byte 1"),
        ("[1,]", #"unexpected "]" at byte 3"#),
        (#"{"a" 1}"#, #"unexpected "1", expected ":", at byte 5"#),
        (#"{"a": 1,}"#, #"unexpected "}", expected a member name, at byte 8"#),
        ("[1 2]", #"unexpected "2", expected "," or "]", at byte 3"#),
        ("1 2", #"unexpected "2" at byte 2"#),
        ("01", #"unexpected "1" at byte 1"#),
        ("1.", "not a number at byte 0"),
        ("-", "not a number at byte 0"),
        ("1e", "not a number at byte 0"),
        ("1e400", "a number out of range at byte 0"),
        ("tru", "not a JSON value at byte 0"),
        ("nul!", "not a JSON value at byte 0"),
        ("+1", #"unexpected "+" at byte 0"#),
        (#""abc"#, "a string that does not end at byte 0"),
        (#""a\x""#, "an invalid escape at byte 2"),
        (#""\u12G4""#, "an invalid escape at byte 1"),
        (#""\ud800""#, "an unpaired surrogate at byte 1"),
        (#""\ud800\u0041""#, "an unpaired surrogate at byte 1"),
        (#""\udc00""#, "an unpaired surrogate at byte 1"),
        ("\"a\nb\"", "a control character in a string at byte 2"),
        ("'a'", #"unexpected "'" at byte 0"#),
    ])
    func refusesWhatIsNotJSONNamingTheByte(text: String, message: String) {
        let error = #expect(throws: JSONParseError.self) { try Self.parse(text) }
        #expect(error?.localizedDescription == message)
    }

    @Test func refusesBytesThatAreNotUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D]] {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(bytes)) }
        }
    }

    @Test func boundsItsNesting() throws {
        let deepest = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try Self.parse(deepest) != .null)
        let deeper = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        let error = #expect(throws: JSONParseError.self) { try Self.parse(deeper) }
        #expect(error?.description == "nested deeper than 512 levels at byte 512")
        // Far deeper than any stack would bear, refused as quickly.
        let abuse = String(repeating: "{\"a\":", count: 1_000_000)
        #expect(throws: JSONParseError.self) { try Self.parse(abuse) }
    }

    /// A real document, read by this parser and by Foundation's, gives the same value.
    @Test func agreesWithFoundationOnTheOpenAPIDocument() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/AuthServer/Operations/openapi.json")
        let data = try Data(contentsOf: file)
        let foundation = Self.converted(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
        let parsed = try JSONValue(parsing: data)
        #expect(parsed == foundation)
        #expect(parsed["openapi"] != nil)
    }

    /// `description` is compact JSON with sorted keys; quotes, backslashes and control
    /// characters escaped, everything else (slashes, non-ASCII) as it is.
    @Test func describesCompactlyWithSortedKeysAndEscapes() {
        let value: JSONValue = .object([
            "b": .array([.null, .bool(true), .bool(false), .integer(-7), .number(1.5)]),
            "a": .string("q\"b\\n\nr\rt\tc\u{1}\u{1F} é/😀"),
            "é": .object([:]),
        ])
        #expect(value.description == #"{"a":"q\"b\\n\nr\rt\tc\u0001\u001f é/😀","b":[null,true,false,-7,1.5],"é":{}}"#)
        #expect(JSONValue.string("plain").description == #""plain""#)
        #expect(JSONValue.array([]).description == "[]")
    }

    /// What `description` writes reads back as the same value, for a whole real document.
    @Test func readsBackWhatItDescribes() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/AuthServer/Operations/openapi.json")
        let value = try JSONValue(parsing: Data(contentsOf: file))
        #expect(try JSONValue(parsing: Data(value.description.utf8)) == value)
    }

    /// JSONSerialization's objects as JSONValue: booleans told from numbers by their
    /// `objCType`, integers from other numbers by theirs.
    static func converted(_ value: Any) -> JSONValue {
        switch value {
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c", "B": return .bool(number.boolValue)
            case "d", "f": return .number(number.doubleValue)
            default: return .integer(number.intValue)
            }
        case let array as [Any]:
            return .array(array.map(converted))
        case let object as [String: Any]:
            return .object(object.mapValues(converted))
        default:
            return .null
        }
    }

    /// A value as explanations show it: whole up to 80 characters, else its first 77 and "…",
    /// the same as cutting its whole JSON, for long strings, long arrays and escapes alike.
    @Test func anAbbreviatedValueIsItsJSONCut() throws {
        let values: [JSONValue] = [
            .string("short"), .integer(7), .null,
            .string(String(repeating: "x", count: 10_000)),
            .string(String(repeating: "\"", count: 500)),
            .array((0..<1_000).map { .integer($0) }),
            .object(["a": .string(String(repeating: "é", count: 300)), "b": .array([.string(String(repeating: "y", count: 200))])]),
        ]
        for value in values {
            let whole = value.description
            let cut = whole.count > 80 ? String(whole.prefix(77)) + "…" : whole
            #expect(value.abbreviated() == cut)
        }
    }
}
