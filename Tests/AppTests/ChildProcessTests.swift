import Foundation
import Glibc
import TestSupport
import Testing

/// The test suites' own process spawner (`TestSupport.ChildProcess`), which replaced Foundation's `Process`.
@Suite(.timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test func reportsExitCodesAndSignals() throws {
        #expect(try ChildProcess.run("/bin/sh", arguments: ["-c", "exit 3"]) == 3)
        let killed = try ChildProcess("/bin/sh", arguments: ["-c", "kill -9 $$"])
        killed.waitUntilExit()
        #expect(killed.wasSignaled && killed.terminationStatus == SIGKILL)
        #expect(!killed.isRunning)
    }

    @Test func pipesInputAndOutputWithErrorsMerged() throws {
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "cat; echo oops >&2"], input: .pipe, output: .pipe,
                                     error: .output)
        let input = try #require(child.input), output = try #require(child.output)
        input.write(Data("hello\n".utf8))
        try input.close()
        #expect(String(decoding: output.readDataToEndOfFile(), as: UTF8.self) == "hello\noops\n")
        child.waitUntilExit()
        #expect(!child.wasSignaled && child.terminationStatus == 0)
    }

    @Test func setsTheDirectoryAndTheWholeEnvironment() throws {
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "pwd; echo \"$ONLY-${HOME:-unset}\""],
                                     environment: ["ONLY": "set"], directory: "/usr", output: .pipe)
        let output = try #require(child.output)
        #expect(String(decoding: output.readDataToEndOfFile(), as: UTF8.self) == "/usr\nset-unset\n")
        child.waitUntilExit()
    }

    @Test func theChildInheritsNoDescriptorAboveStderr() throws {
        let inheritable = open("/dev/null", O_RDONLY)  // no O_CLOEXEC: posix_spawn alone would pass it on
        try #require(inheritable > 2)
        defer { close(inheritable) }
        let child = try ChildProcess("/bin/sh", arguments: ["-c", "ls /proc/$$/fd; true"], output: .pipe)
        let output = try #require(child.output)
        let descriptors = String(decoding: output.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        child.waitUntilExit()
        #expect(descriptors.contains("1"))
        #expect(!descriptors.contains(Substring(String(inheritable))), "\(descriptors)")
        #expect(descriptors.compactMap { Int($0) }.allSatisfy { $0 <= 2 }, "\(descriptors)")
    }

    @Test func anExecutableThatIsMissingIsAnError() {
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess("/nonexistent/siwa") }
    }
}
