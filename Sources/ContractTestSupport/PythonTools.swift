import Foundation
import ProcessKit

/// Tools from PyPI for the tests: the Pact verifier, pyotp, soft-webauthn, oidc-provider-mock. They are installed
/// on first use by `scripts/python-venv`, into the virtual environment it names (the one
/// `scripts/openapi-check` uses, kept outside the clone so that a fresh clone does not install
/// them again). The script lets one install run at a time, in this process or another.
///
/// ```swift
/// let pact = PythonTools.program("pact", from: "pact-python-cli")      // "…/bin/pact", or nil
/// let python = PythonTools.python(importing: "pyotp", from: "pyotp")   // "…/bin/python", or nil
/// ```
public enum PythonTools {
    /// `scripts/python-venv` of this package.
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/python-venv").path

    /// The path of the program `name` that the PyPI package `package` installs, installing
    /// it first when it is not there; nil when it cannot be (no `python3`, no network).
    /// With `separate`, the environment is one of that name beside the shared one, for a
    /// package whose requirements clash with the others'.
    public static func program(_ name: String, from package: String, separate: String? = nil) -> String? {
        environment(with: "bin/\(name)=\(package)", separate: separate).map { $0 + "/bin/" + name }
    }

    /// The environment's `python`, once it can import `module` (from the PyPI package
    /// `package`, installed first when it cannot); nil when it cannot be installed.
    public static func python(importing module: String, from package: String) -> String? {
        environment(with: "\(module)=\(package)").map { $0 + "/bin/python" }
    }

    /// The environment's folder, after `scripts/python-venv` ensured `requirement`
    /// (`CHECK=PACKAGE`); nil when it failed. It prints the folder last.
    private static func environment(with requirement: String, separate: String? = nil) -> String? {
        let command = separate.map { ("/usr/bin/env", ["AUTHD_PYTHON_VENV_SUFFIX=\($0)", script, requirement]) } ?? (script, [requirement])
        guard let result = try? CommandRunner.run(command.0, command.1), result.status == 0 else { return nil }
        let folder = result.output.split(separator: "\n").last.map(String.init) ?? ""
        return folder.hasPrefix("/") ? folder : nil
    }
}
