import Foundation
import Testing

@testable import WebAuthn

/// The CBOR decoder and encoder: RFC 8949 Appendix A's examples of the kinds WebAuthn uses,
/// both ways, the examples of the kinds refused, and the bounds on untrusted input.
@Suite struct CBORTests {
    static let hex = WebAuthnFixtures.hex

    /// RFC 8949 Appendix A: (diagnostic notation, value, encoding), decoded and re-encoded.
    static let appendixA: [(String, CBORValue, String)] = [
        ("0", .unsigned(0), "00"),
        ("1", .unsigned(1), "01"),
        ("10", .unsigned(10), "0a"),
        ("23", .unsigned(23), "17"),
        ("24", .unsigned(24), "1818"),
        ("25", .unsigned(25), "1819"),
        ("100", .unsigned(100), "1864"),
        ("1000", .unsigned(1000), "1903e8"),
        ("1000000", .unsigned(1_000_000), "1a000f4240"),
        ("1000000000000", .unsigned(1_000_000_000_000), "1b000000e8d4a51000"),
        ("18446744073709551615", .unsigned(.max), "1bffffffffffffffff"),
        ("-18446744073709551616", .negative(.max), "3bffffffffffffffff"),
        ("-1", .int(-1), "20"),
        ("-10", .int(-10), "29"),
        ("-100", .int(-100), "3863"),
        ("-1000", .int(-1000), "3903e7"),
        ("false", .bool(false), "f4"),
        ("true", .bool(true), "f5"),
        ("null", .null, "f6"),
        ("h''", .bytes(Data()), "40"),
        ("h'01020304'", .bytes(Data([1, 2, 3, 4])), "4401020304"),
        ("\"\"", .text(""), "60"),
        ("\"a\"", .text("a"), "6161"),
        ("\"IETF\"", .text("IETF"), "6449455446"),
        ("\"\\\"\\\\\"", .text("\"\\"), "62225c"),
        ("\"\\u00fc\"", .text("\u{00fc}"), "62c3bc"),
        ("\"\\u6c34\"", .text("\u{6c34}"), "63e6b0b4"),
        ("\"\\ud800\\udd51\"", .text("\u{10151}"), "64f0908591"),
        ("[]", .array([]), "80"),
        ("[1, 2, 3]", .array([.int(1), .int(2), .int(3)]), "83010203"),
        ("[1, [2, 3], [4, 5]]", .array([.int(1), .array([.int(2), .int(3)]), .array([.int(4), .int(5)])]), "8301820203820405"),
        ("[1, 2, …, 25]", .array((1...25).map { .int($0) }), "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
        ("{}", .map([]), "a0"),
        ("{1: 2, 3: 4}", .map([.init(.int(1), .int(2)), .init(.int(3), .int(4))]), "a201020304"),
        (
            "{\"a\": 1, \"b\": [2, 3]}", .map([.init(.text("a"), .int(1)), .init(.text("b"), .array([.int(2), .int(3)]))]),
            "a26161016162820203"
        ),
        ("[\"a\", {\"b\": \"c\"}]", .array([.text("a"), .map([.init(.text("b"), .text("c"))])]), "826161a161626163"),
        (
            "{\"a\": \"A\", …, \"e\": \"E\"}",
            .map(["a", "b", "c", "d", "e"].map { .init(.text($0), .text($0.uppercased())) }),
            "a56161614161626142616361436164614461656145"
        ),
    ]

    @Test func decodesAndEncodesTheAppendixAExamples() throws {
        for (diagnostic, value, encoding) in Self.appendixA {
            #expect(try CBORDecoder.decode(Self.hex(encoding), field: "x") == value, "\(diagnostic)")
            #expect(WebAuthnFixtures.hexString(CBOREncoder.encode(value)) == encoding, "\(diagnostic)")
        }
    }

    /// Appendix A's examples of what WebAuthn does not use: floats, tags, undefined, other
    /// simple values, indefinite lengths.
    @Test(arguments: [
        "f90000", "f93c00", "f97bff", "fa47c35000", "fb3ff199999999999a", "f97c00", "fa7fc00000", "fbfff0000000000000",
        "c074323031332d30332d32315432303a30343a30305a", "c11a514b67b0", "c249010000000000000000", "d74401020304",
        "d818456449455446", "d82076687474703a2f2f7777772e6578616d706c652e636f6d",
        "f7", "f0", "f818", "f8ff",
        "5f42010243030405ff", "7f657374726561646d696e67ff", "9fff", "9f018202039f0405ffff", "bf61610161629f0203ffff",
        "826161bf61626163ff", "bf6346756ef563416d7421ff", "ff",
    ])
    func refusesWhatWebAuthnDoesNotUse(encoding: String) {
        let error = #expect(throws: WebAuthnError.self) { try CBORDecoder.decode(Self.hex(encoding), field: "x") }
        #expect(error?.isMalformed == true)
    }

    @Test func integerValuesReadBackWithinIntAndNotBeyond() {
        #expect(CBORValue.negative(256).intValue == -257)
        #expect(CBORValue.int(Int.min).intValue == Int.min)
        #expect(CBORValue.int(Int.max).intValue == Int.max)
        #expect(CBORValue.unsigned(UInt64(Int.max) + 1).intValue == nil)
        #expect(CBORValue.negative(UInt64(Int.max) + 1).intValue == nil)
        #expect(CBORValue.text("1").intValue == nil)
    }

    @Test func mapsAreReadByIntegerAndTextKeys() throws {
        let key = try CBORDecoder.decode(Self.hex("a301020326206161"), field: "x")
        #expect(key[1]?.intValue == 2)
        #expect(key[3]?.intValue == -7)
        #expect(key[-1]?.textValue == "a")
        #expect(key["1"] == nil && key[2] == nil)
        #expect(CBORValue.array([])[1] == nil)
    }

    @Test func nestingIsBoundedAtSixteenLevels() throws {
        let sixteen = Data(repeating: 0x81, count: 15) + Data([0x80])
        #expect(throws: Never.self) { try CBORDecoder.decode(sixteen, field: "x") }
        let seventeen = Data(repeating: 0x81, count: 16) + Data([0x80])
        let error = try #require(throws: WebAuthnError.self) { try CBORDecoder.decode(seventeen, field: "x") }
        #expect("\(error)".contains("deeper than 16"))
        // Deep input of any size fails at level 17, without recursing further.
        #expect(throws: WebAuthnError.self) { try CBORDecoder.decode(Data(repeating: 0xa1, count: 100_000), field: "x") }
    }

    @Test(arguments: [
        ("5bffffffffffffffff", "string claims"),  // a byte string of 2^64 - 1 bytes
        ("5b8000000000000000", "string claims"),  // 2^63 bytes
        ("7b7fffffffffffffff00", "string claims"),  // text, Int.max bytes
        ("9bffffffffffffffff", "array claims"),  // 2^64 - 1 items
        ("bb4000000000000000", "map claims"),  // 2^62 entries
        ("9a0000010101", "array claims"),  // more items than bytes left
        ("a2010203", "map claims"),
        ("1b0000", "truncated"),
        ("44010203", "string claims"),
        ("83", "array claims"),
        ("", "truncated"),
    ])
    func hugeAndTruncatedLengthsFailCleanly(encoding: String, reason: String) throws {
        let error = try #require(throws: WebAuthnError.self) { try CBORDecoder.decode(Self.hex(encoding), field: "attestationObject") }
        #expect(error.isMalformed && "\(error)".contains(reason) && "\(error)".hasPrefix("malformed attestationObject:"))
    }

    @Test func trailingBytesAreReportedAndAPrefixKeepsItsLength() throws {
        let error = try #require(throws: WebAuthnError.self) { try CBORDecoder.decode(Self.hex("0102"), field: "x") }
        #expect("\(error)".contains("1 bytes follow"))
        let (value, length) = try CBORDecoder.decodePrefix(Self.hex("a1616101ffff"), field: "x")
        #expect(value == .map([.init(.text("a"), .int(1))]) && length == 4)
    }

    @Test(arguments: ["a2010201 03", "a2616101616102", "a1800 1", "a1f5 01", "a14001", "62c328", "61ff"])
    func refusesRepeatedOrOddKeysAndBadUTF8(encoding: String) {
        #expect(throws: WebAuthnError.self) {
            try CBORDecoder.decode(Self.hex(encoding.replacingOccurrences(of: " ", with: "")), field: "x")
        }
    }

    @Test func reservedAdditionalInformationIsRefused() {
        for initial in [0x1c, 0x1d, 0x1e, 0x3c, 0x5c, 0x7c, 0x9c, 0xbc, 0xfc] as [UInt8] {
            #expect(throws: WebAuthnError.self) { try CBORDecoder.decode(Data([initial, 0, 0, 0, 0, 0, 0, 0, 0, 0]), field: "x") }
        }
    }

    @Test func encodesEveryHeadWidth() {
        #expect(WebAuthnFixtures.hexString(CBOREncoder.encode(.bytes(Data(count: 24)))).hasPrefix("5818"))
        #expect(WebAuthnFixtures.hexString(CBOREncoder.encode(.text(String(repeating: "a", count: 256)))).hasPrefix("790100"))
        #expect(WebAuthnFixtures.hexString(CBOREncoder.encode(.unsigned(0x1_0000))) == "1a00010000")
        #expect(WebAuthnFixtures.hexString(CBOREncoder.encode(.unsigned(0x1_0000_0000))) == "1b0000000100000000")
    }
}
