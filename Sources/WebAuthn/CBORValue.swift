import Foundation

/// A CBOR data item (RFC 8949) of the kinds WebAuthn uses: integers, byte and text strings,
/// arrays, maps, `false`, `true` and `null`. Maps keep their entries in the order of the
/// input. Floating-point numbers, tags and indefinite lengths are not represented: the
/// decoder refuses them.
///
/// ```swift
/// let key: CBORValue = .map([.init(.int(1), .int(2)), .init(.int(3), .int(-7))])
/// key[1]?.intValue              // 2
/// CBOREncoder.encode(key)       // a2 01 02 03 26
/// ```
public enum CBORValue: Sendable, Hashable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1): the value is -1 - the associated value.
    case negative(UInt64)
    /// A byte string (major type 2).
    case bytes(Data)
    /// A UTF-8 text string (major type 3).
    case text(String)
    /// An array (major type 4).
    case array([CBORValue])
    /// A map (major type 5), in the order of its entries.
    case map([CBORMapEntry])
    /// `false` or `true` (simple values 20 and 21).
    case bool(Bool)
    /// `null` (simple value 22).
    case null

    /// The integer `value` as `.unsigned` or `.negative`.
    ///
    /// ```swift
    /// CBORValue.int(-7)   // .negative(6)
    /// ```
    public static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// The value of an integer item that fits in `Int`; nil for other items.
    ///
    /// ```swift
    /// CBORValue.negative(256).intValue   // -257
    /// ```
    public var intValue: Int? {
        switch self {
        case .unsigned(let value): value <= UInt64(Int.max) ? Int(value) : nil
        case .negative(let value): value <= UInt64(Int.max) ? -1 - Int(value) : nil
        default: nil
        }
    }

    /// The bytes of a byte string; nil for other items.
    ///
    /// ```swift
    /// CBORValue.bytes(Data([1])).bytesValue   // Data([1])
    /// ```
    public var bytesValue: Data? {
        if case .bytes(let bytes) = self { bytes } else { nil }
    }

    /// The text of a text string; nil for other items.
    ///
    /// ```swift
    /// CBORValue.text("none").textValue   // "none"
    /// ```
    public var textValue: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The items of an array; nil for other items.
    ///
    /// ```swift
    /// CBORValue.array([.null]).arrayValue?.count   // 1
    /// ```
    public var arrayValue: [CBORValue]? {
        if case .array(let items) = self { items } else { nil }
    }

    /// The entries of a map; nil for other items.
    ///
    /// ```swift
    /// CBORValue.map([]).mapValue?.isEmpty   // true
    /// ```
    public var mapValue: [CBORMapEntry]? {
        if case .map(let entries) = self { entries } else { nil }
    }

    /// The value under an integer key of a map (COSE labels); nil when absent or not a map.
    ///
    /// ```swift
    /// coseKey[3]?.intValue   // -7 (alg)
    /// ```
    public subscript(key: Int) -> CBORValue? {
        self[.int(key)]
    }

    /// The value under a text key of a map; nil when absent or not a map.
    ///
    /// ```swift
    /// attestationObject["fmt"]?.textValue   // "packed"
    /// ```
    public subscript(key: String) -> CBORValue? {
        self[.text(key)]
    }

    /// The value under `key` of a map; nil when absent or not a map.
    ///
    /// ```swift
    /// CBORValue.map([.init(.text("a"), .null)])[.text("a")]   // .null
    /// ```
    public subscript(key: CBORValue) -> CBORValue? {
        mapValue?.first { $0.key == key }?.value
    }
}

/// One key and value of a CBOR map.
///
/// ```swift
/// CBORMapEntry(.text("fmt"), .text("none"))
/// ```
public struct CBORMapEntry: Sendable, Hashable {
    /// The key (the decoder accepts integer and text keys only).
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// Creates an entry.
    ///
    /// ```swift
    /// let alg = CBORMapEntry(.int(3), .int(-8))
    /// ```
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
