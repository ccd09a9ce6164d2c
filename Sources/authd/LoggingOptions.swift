import ArgumentParser
import Logging

/// `--log-level`, and the one place logging is set up.
struct LoggingOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var level: Logger.Level = .info

    /// Sends logs to standard error and returns the root logger.
    func makeLogger() -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "authd")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
