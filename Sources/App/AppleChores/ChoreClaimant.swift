import Foundation
import Glibc

/// Which process claimed a chore's rows, written beside each claim so that a later run on the same machine can tell
/// a claimant that is gone (killed, even with SIGKILL) and take its rows back at once, instead of waiting for the
/// claim's lease to lapse. The text is `<boot id>/<pid namespace>/<pid>/<start time>`: a pid is only compared
/// within one boot and one pid namespace (a container has its own), and its start time tells a reused pid. A
/// claimant on another machine, in another container or before a reboot is never judged: its lease lapses.
struct ChoreClaimant: Sendable, Equatable {
    var bootID: String
    var pidNamespace: String
    var pid: Int32
    var startTime: String

    /// This process, read once; nil when `/proc` does not show this process under its own pid (a pid namespace
    /// whose `/proc` is another's), so nothing could be judged.
    static let current: ChoreClaimant? = {
        let pid = getpid()
        guard let bootID = bootID(), let namespace = pidNamespace(), let own = stat(of: pid), own.pid == pid,
              let start = own.startTime else { return nil }
        return ChoreClaimant(bootID: bootID, pidNamespace: namespace, pid: pid, startTime: start)
    }()

    /// The text stored in `claimed_by`.
    var text: String { "\(bootID)/\(pidNamespace)/\(pid)/\(startTime)" }

    /// The claimant `text` names; nil for a text this build did not write.
    init?(text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let pid = Int32(parts[2]), pid > 0 else { return nil }
        self.init(bootID: String(parts[0]), pidNamespace: String(parts[1]), pid: pid, startTime: String(parts[3]))
    }

    init(bootID: String, pidNamespace: String, pid: Int32, startTime: String) {
        (self.bootID, self.pidNamespace, self.pid, self.startTime) = (bootID, pidNamespace, pid, startTime)
    }

    /// Whether this claimant is known to have ended: it ran on this machine since its boot, in this pid namespace,
    /// and either no process has its pid (`kill(pid, 0)` fails with `ESRCH`), or the one that has it started at
    /// another time (a pid reused) or is a zombie. False whenever that cannot be known: a process that `/proc` hides
    /// (`hidepid`, systemd's `ProtectProc`) or that may not be signalled (`EPERM`) counts as alive.
    func isGone(seenFrom here: ChoreClaimant) -> Bool {
        guard bootID == here.bootID, pidNamespace == here.pidNamespace, self != here else { return false }
        if kill(pid, 0) == -1 && errno == ESRCH { return true }
        guard let seen = Self.stat(of: pid), seen.pid == pid else { return false }
        return seen.startTime != startTime || seen.state == "Z"
    }

    private static func bootID() -> String? {
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func pidNamespace() -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .filter { $0.isNumber }
    }

    /// Fields of `/proc/<pid>/stat` (proc(5)): the pid (1), the state (3), and when the process started (22, clock
    /// ticks since boot); nil when it cannot be read.
    static func stat(of pid: Int32) -> (pid: Int32, state: Character?, startTime: String?)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let open = stat.firstIndex(of: " "), let read = Int32(stat[..<open]),
              let close = stat.lastIndex(of: ")") else { return nil }
        // The fields after the command name (which may hold spaces and parentheses), from field 3 on.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return (read, fields.first?.first, fields.count > 19 ? String(fields[19]) : nil)
    }
}
