import Foundation

/// The environment variables the command line falls back on (`DATABASE_URL`,
/// `AUTHD_KEY_ENCRYPTION_KEY`, `AUTHD_BREACHED_PASSWORDS`): an empty one counts as unset.
///
/// ```swift
/// let url = databaseURL ?? Environment.value("DATABASE_URL")
/// ```
enum Environment {
    /// The value of `name`, nil when it is unset or empty.
    static func value(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
