import Foundation

/// Finds an executable built beside the running program (for example `authd` next to the
/// test runner in the build folder; on Apple platforms the runner sits inside a `.xctest`
/// bundle, so enclosing folders are searched too).
///
/// ```swift
/// let authd = BuiltExecutable.path(named: "authd")   // ".build/debug/authd"
/// ```
public enum BuiltExecutable {
    /// The path of the executable `name` in the running program's folder or one above it,
    /// nil when there is none.
    public static func path(named name: String) -> String? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}
