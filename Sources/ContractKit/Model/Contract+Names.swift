import Foundation

extension Contract {
    /// `base`, or `base` + `separator` + 2, 3, … : the first that `isTaken` refuses. Recording
    /// and importing name files, interactions and variables with it.
    ///
    /// ```swift
    /// Contract.freeName("login", separator: "-") { ["login"].contains($0) }   // "login-2"
    /// ```
    public static func freeName(_ base: String, separator: String, isTaken: (String) -> Bool) -> String {
        var name = base
        var counter = 2
        while isTaken(name) {
            name = "\(base)\(separator)\(counter)"
            counter += 1
        }
        return name
    }

    /// `text` as a `{{variable}}` name: lower case, each other character as `_`
    /// (`"Access Token"` → `access_token`); `value` when nothing is left.
    package static func identifier(_ text: String) -> String {
        slug(text, separator: "_", empty: "value")
    }

    /// `segment` as a contract file's base name: lower case, other characters as `-`
    /// (`"ios app"` → `ios-app`); `root` when nothing is left.
    package static func fileBase(_ segment: String) -> String {
        slug(segment, separator: "-", empty: "root")
    }

    /// `text` in lower case with each other character as `separator`, trimmed of it at both
    /// ends; `empty` when nothing is left.
    private static func slug(_ text: String, separator: Character, empty: String) -> String {
        let mapped = text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : separator }
        let trimmed = String(mapped).trimmingCharacters(in: CharacterSet(charactersIn: String(separator)))
        return trimmed.isEmpty ? empty : trimmed
    }
}
