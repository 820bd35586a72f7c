import Foundation
import Glibc

/// The transfer file `--out` names, being written: a new file beside it (mode 0600), created before the export asks
/// Apple anything or stores anything, so a path it cannot write stops the command first; then filled, flushed to disk
/// and renamed over `path`, so a reader sees the old file or the whole new one, never a part. Dropped before
/// `commit()` (an export left incomplete, an error), it removes the new file and leaves `path` as it was.
final class TransferFileWriter {
    /// The file's path, as `--out` gave it.
    let path: String
    /// The new file beside `path`, renamed over it by `commit()`.
    let temporary: String
    /// The new file, open for writing; -1 once closed.
    private var descriptor: Int32
    private var committed = false

    /// Creates the new file beside `path`.
    /// - Throws: `OperatorError` naming `--out` when `path` is there and is not a regular file (a folder, a symbolic
    ///   link, a device or a FIFO, which the rename would replace), or the new file cannot be created.
    init(path: String) throws {
        try Self.refuseAnythingButAFile(at: path)
        Self.removeAbandoned(besides: path)
        // A name nobody can guess, made only if it does not exist and never through a link: a file or symlink
        // planted beside `path` (a shared folder) is never written through. Found by an audit: a predictable
        // `FILE.partial-<pid>` opened without O_EXCL let a planted symlink truncate the file it pointed to.
        let temporary = path + ".partial-\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            // Named by the file asked for, in whose folder the temporary one goes: found by a review, the message
            // named the temporary file.
            let reason = String(cString: strerror(errno))
            throw OperatorError("--out: cannot create \(path) (writing beside it first): \(reason)")
        }
        self.path = path
        self.temporary = temporary
        self.descriptor = descriptor
    }

    /// Refuses a `path` that is there and is not a regular file: the rename would put the new file in its place.
    /// Found by a review: `--out /dev/stdout` replaced the system's `/dev/stdout` link with a file (as root), and a
    /// FIFO or a device gave nothing to whoever read it.
    private static func refuseAnythingButAFile(at path: String) throws {
        switch NonRegularFile.at(path, followingLinks: false) {
        case nil: return
        case .folder?:
            throw OperatorError("--out: \(path) is a folder; give the file's path, e.g. \(path)/transfer.jsonl")
        case .symbolicLink?:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map { " (to \($0))" } ?? ""
            throw OperatorError("--out: \(path) is a symbolic link\(target), which the new file would replace; "
                                + "give the path of the file itself")
        default:
            throw OperatorError("--out: \(path) is not a regular file (a device, a FIFO or a socket); give the path "
                                + "of a file, which is written whole and then renamed into place")
        }
    }

    /// Removes the new files of earlier runs for `path` whose process is gone (an export killed with SIGKILL left
    /// its `FILE.partial-<pid>-<random>` behind); those of a run still going are left alone.
    static func removeAbandoned(besides path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let prefix = url.lastPathComponent + ".partial-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0, pid != getpid()
            else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { unlink(folder + "/" + name) }
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporary) }
    }

    /// Appends `data` to the new file.
    /// - Throws: `OperatorError` naming `--out` and the system's reason.
    func append(_ data: Data) throws {
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else {
                    throw OperatorError("--out: cannot write \(temporary): \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// Flushes the new file to disk, closes it and renames it over `path`.
    /// - Throws: `OperatorError` naming `--out`; the new file is removed then and `path` left as it was.
    func commit() throws {
        guard fsync(descriptor) == 0 else {
            throw OperatorError("--out: cannot flush \(temporary): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        descriptor = -1
        guard rename(temporary, path) == 0 else {
            throw OperatorError("--out: cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
        }
        committed = true
    }
}
