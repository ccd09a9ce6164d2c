import Foundation
import ProcessKit
import Synchronization

/// Tools from PyPI for the tests, installed with pip into `.build/python` (the virtual
/// environment `scripts/openapi-check` uses) on first use: the Pact verifier, pyotp. One
/// install runs at a time, since the test targets share the folder and the process.
///
/// ```swift
/// let pact = PythonTools.program("pact", from: "pact-python-cli")      // ".build/python/bin/pact", or nil
/// let python = PythonTools.python(importing: "pyotp", from: "pyotp")   // ".build/python/bin/python", or nil
/// ```
public enum PythonTools {
    /// The virtual environment: `.build/python` in this package.
    public static let environment = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/python").path

    private static let installing = Mutex(())

    /// The path of the program `name` that the PyPI package `package` installs, installing
    /// it first when it is not there; nil when it cannot be (no `python3`, no network).
    public static func program(_ name: String, from package: String) -> String? {
        let path = environment + "/bin/" + name
        return ensure(package) { FileManager.default.isExecutableFile(atPath: path) } ? path : nil
    }

    /// The environment's `python`, once it can import `module` (from the PyPI package
    /// `package`, installed first when it cannot); nil when it cannot be installed.
    public static func python(importing module: String, from package: String) -> String? {
        let python = environment + "/bin/python"
        let present = {
            FileManager.default.isExecutableFile(atPath: python) && (try? CommandRunner.run(python, ["-c", "import \(module)"]))?.status == 0
        }
        return ensure(package, present: present) ? python : nil
    }

    /// Whether `present()` holds, after installing `package` when it did not.
    private static func ensure(_ package: String, present: () -> Bool) -> Bool {
        installing.withLock { _ in
            if present() { return true }
            if !FileManager.default.isExecutableFile(atPath: environment + "/bin/pip") {
                guard let python = CommandRunner.which("python3"), (try? CommandRunner.run(python, ["-m", "venv", environment]))?.status == 0 else {
                    return false
                }
            }
            let installed = try? CommandRunner.run(environment + "/bin/pip", ["install", "--quiet", "--disable-pip-version-check", package])
            return installed?.status == 0 && present()
        }
    }
}
