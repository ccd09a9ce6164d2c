import Logging

/// Work a request's answer does not wait for: the token and message of a reset or a sign-in
/// code, made after the same answer for any address, so that the answer's timing tells
/// nothing. It runs in a task of its own; a failure is logged by its type only (its details
/// may name the account).
///
/// ```swift
/// AfterTheAnswer.run("password reset not issued", logger: context.logger) { try await recovery.issue(accepted) }
/// ```
enum AfterTheAnswer {
    /// Runs `work` in a task of its own, logging `failure` if it throws.
    static func run(_ failure: Logger.Message, logger: Logger, _ work: @escaping @Sendable () async throws -> Void) {
        Task {
            do {
                try await work()
            } catch {
                logger.warning(failure, metadata: ["reason": "\(type(of: error))"])
            }
        }
    }
}
