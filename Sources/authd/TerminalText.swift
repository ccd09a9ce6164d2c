/// Text from the database made safe to print on an operator's terminal: control characters
/// (escape sequences), format characters (bidi overrides and isolates, zero-width
/// characters, which reorder or hide what is shown) and line separators are written as
/// `\u{…}`, and a backslash as `\\`, so what is printed is what is stored, visibly.
///
/// ```swift
/// TerminalText.escaped("eve\u{202E}gnp.exe")   // "eve\\u{202E}gnp.exe"
/// ```
enum TerminalText {
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                if scalar == "\\" { result += "\\\\" } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }
}
