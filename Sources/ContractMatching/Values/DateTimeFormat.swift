import Foundation

/// RFC 3339 date-times, with or without fractional seconds.
///
/// ```swift
/// DateTimeFormat.parse("2026-11-22T07:32:36Z")        // a Date
/// DateTimeFormat.parse("2026-11-22T07:32:36.123+01:00")
/// DateTimeFormat.string(from: Date())                 // "2026-11-22T07:32:36Z"
/// ```
public enum DateTimeFormat {
    /// Parses an RFC 3339 date-time; nil when `text` is not one.
    public static func parse(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    /// Formats `date` as RFC 3339 in UTC, whole seconds.
    public static func string(from date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
