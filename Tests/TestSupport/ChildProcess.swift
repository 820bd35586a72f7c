import Foundation
import Glibc
import Synchronization

/// A child process for tests, started with `posix_spawn(3)` instead of Foundation's `Process`.
///
/// On Linux, Foundation's `Process.run()` (Swift 6.3) copies a whole 256-byte `d_name` out of every
/// `/proc/self/fd` entry while it looks for descriptors to close, and crashes the test process when an entry ends
/// next to an unmapped page (swift-corelibs-foundation#5472; it crashed a full run here once, in `Process.run()`).
/// This spawns directly and, as `Process` does, closes every descriptor above stderr in the child
/// (`posix_spawn_file_actions_addclosefrom_np`), so a child never holds another test's sockets open.
public final class ChildProcess: Sendable {
    /// Where the child's stdin comes from.
    public enum Input: Sendable { case null, pipe }
    /// Where the child's stdout goes.
    public enum Output: Sendable { case inherit, null, pipe, file(String) }
    /// Where the child's stderr goes; `.output` shares stdout's destination.
    public enum ErrorOutput: Sendable { case inherit, null, output }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let pid: pid_t
    /// The write end of the child's stdin, for `.pipe` input.
    public let input: FileHandle?
    /// The read end of the child's stdout, for `.pipe` output.
    public let output: FileHandle?
    /// The raw `waitpid` status once the child has been reaped.
    private let waitStatus = Mutex<Int32?>(nil)

    /// Starts `executable` (an absolute path) with `arguments`.
    /// - Parameters:
    ///   - environment: the child's whole environment; nil passes this process's.
    ///   - directory: the child's working directory; nil keeps this process's.
    public init(_ executable: String, arguments: [String] = [], environment: [String: String]? = nil,
                directory: String? = nil, input: Input = .null, output: Output = .inherit,
                error: ErrorOutput = .inherit) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        var spawned = false
        defer {
            childEnds.forEach { close($0) }
            if !spawned { parentEnds.forEach { close($0) } }
        }

        /// A pipe with one end dup'ed onto the child's `target` descriptor; returns the parent's end.
        func pipe(to target: Int32, childReads: Bool) throws -> Int32 {
            let ends = try Self.makePipe()
            let (childEnd, parentEnd) = childReads ? (ends.read, ends.write) : (ends.write, ends.read)
            parentEnds.append(parentEnd)
            childEnds.append(childEnd)
            posix_spawn_file_actions_adddup2(&actions, childEnd, target)
            return parentEnd
        }

        var inputEnd: Int32?
        switch input {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe: inputEnd = try pipe(to: 0, childReads: true)
        }
        var outputEnd: Int32?
        switch output {
        case .inherit: break
        case .null: posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        case .file(let path): posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .pipe: outputEnd = try pipe(to: 1, childReads: false)
        }
        switch error {
        case .inherit: break
        case .null: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        case .output: posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        if let directory { try Self.addChdir(&actions, directory) }
        try Self.closeFrom(&actions, 3)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = environment ?? ProcessInfo.processInfo.environment
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        // The spawning thread may be one of Dispatch's, which block nearly every signal; a child inherits that mask,
        // and a daemon such as PgBouncer would then never see the SIGTERM that stops it. Children start unblocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(status)))")
        }
        spawned = true
        pid = child
        self.input = inputEnd.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        self.output = outputEnd.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    /// Whether the child has not ended yet (reaps it when it has).
    public var isRunning: Bool {
        waitStatus.withLock { saved in
            guard saved == nil else { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            saved = status
            return false
        }
    }

    /// Blocks until the child ends.
    public func waitUntilExit() {
        waitStatus.withLock { saved in
            guard saved == nil else { return }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            saved = status
        }
    }

    /// Whether a signal ended the child; meaningful once it has ended.
    public var wasSignaled: Bool {
        guard let status = waitStatus.withLock({ $0 }) else { return false }
        return status & 0x7F != 0 && status & 0x7F != 0x7F
    }

    /// The exit code, or the number of the signal that ended the child (`wasSignaled`); -1 while it runs.
    public var terminationStatus: Int32 {
        guard let status = waitStatus.withLock({ $0 }) else { return -1 }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    /// Runs `executable` to its end with no input and its output discarded; its exit code (or signal).
    public static func run(_ executable: String, arguments: [String] = []) throws -> Int32 {
        let child = try ChildProcess(executable, arguments: arguments, output: .null, error: .null)
        child.waitUntilExit()
        return child.terminationStatus
    }

    /// The path of `name`, an executable product that `swift build` / `swift test` put beside the running test
    /// binary or in a folder above it.
    public static func builtProduct(_ name: String) throws -> String {
        let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
        while directory.pathComponents.count > 1 {
            let candidate = directory.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        throw Failure(description: "\(name) not found above \(me); run `swift build` first")
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(description: "pipe: \(errno)") }
        // Close-on-exec for the parent's ends in children spawned by other threads meanwhile (this child gets its
        // own through dup2, which clears the flag; `closefrom` closes the rest in every child anyway).
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which the Glibc module does not import.
    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np"),
              unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest) == 0 else {
            throw Failure(description: "posix_spawn_file_actions_addclosefrom_np is missing or failed (glibc < 2.34)")
        }
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29), which the Glibc module does not import either.
    private static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ path: String) throws {
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>,
                                             UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np"),
              path.withCString({ unsafeBitCast(symbol, to: AddChdir.self)(&actions, $0) }) == 0 else {
            throw Failure(description: "posix_spawn_file_actions_addchdir_np is missing or failed (glibc < 2.29)")
        }
    }
}
