import App
import ArgumentParser
import Foundation
import HTTPCore

/// How the operators' commands fail: one line on standard error, exit status 1.
enum OperatorFailure {
    static func report(_ body: () throws -> Void) throws {
        do { try body() } catch let error as OperatorError { try fail(error) }
    }

    static func report(_ body: () async throws -> Void) async throws {
        do { try await body() } catch let error as OperatorError { try fail(error) }
    }

    static func writeError(_ text: String, newline: Bool = true) {
        FileHandle.standardError.write(Data((text + (newline ? "\n" : "")).utf8))
    }

    private static func fail(_ error: OperatorError) throws -> Never {
        writeError("siwa: \(LogEscaping.escape(error.description))")
        throw ExitCode.failure
    }
}
