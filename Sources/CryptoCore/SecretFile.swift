import Glibc

/// A key kept in a file of its own (mode 0600), made of random bytes the first time it is asked for.
package enum SecretFile {
    /// Why a key file could not be used.
    enum Failure: Error, CustomStringConvertible, Equatable {
        /// The file exists but does not hold exactly the expected number of bytes.
        case wrongSize(path: String, expected: Int)
        /// The file could not be created, written or read.
        case unusable(path: String, errno: Int32)

        var description: String {
            switch self {
            case .wrongSize(let path, let expected): "\(path) does not hold \(expected) bytes"
            case .unusable(let path, let code): "cannot use \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// The `count` bytes in `path`; when there is no such file, `count` random bytes written there first. A new
    /// key is written whole to a file of its own and then linked into place (`link` never replaces a file), so a
    /// reader never sees half a key and two processes starting at once end up with the same one. An existing file
    /// of another size is an error, never overwritten.
    package static func loadOrCreate(path: String, count: Int) throws -> [UInt8] {
        if let existing = try load(path: path, count: count) { return existing }
        return try create(path: path, bytes: try SecureRandom.bytes(count: count))
    }

    /// Writes `bytes` to a new file at `path` (mode 0600), written whole to a file of its own and then linked into
    /// place, so an existing file is never replaced.
    /// - Returns: what `path` then holds: `bytes`, or the key another process put there first.
    /// - Throws: `Failure` when the file cannot be written, or the one already there holds another number of bytes.
    package static func create(path: String, bytes: [UInt8]) throws -> [UInt8] {
        if try place(path: path, bytes: bytes) { return bytes }
        guard let winner = try load(path: path, count: bytes.count) else {
            throw Failure.unusable(path: path, errno: ENOENT)
        }
        return winner
    }

    /// Writes `bytes` to a file of its own, created with mode 0600 (never wider, not even for a moment), synced,
    /// then linked to `path`: a reader never sees half of it, and a file or link already at `path` is never
    /// replaced or followed.
    /// - Returns: false when `path` already existed (nothing changed there).
    /// - Throws: `Failure` when the file cannot be written or linked.
    package static func place(path: String, bytes: [UInt8]) throws -> Bool {
        let suffix = try SecureRandom.bytes(count: 8).map { String($0, radix: 16) }.joined()
        let temporary = "\(path).\(suffix).new"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.unusable(path: path, errno: errno) }
        defer { unlink(temporary) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = written == bytes.count && fsync(descriptor) == 0
        let code = errno
        close(descriptor)
        guard synced else { throw Failure.unusable(path: path, errno: code) }
        if link(temporary, path) == 0 { return true }
        guard errno == EEXIST else { throw Failure.unusable(path: path, errno: errno) }
        return false
    }

    /// The key in `path`, or nil when there is no such file (none is made). Read with `open`/`fstat`/`read`
    /// (Foundation's `FileManager.contents` leaks its buffer for an empty file, which LeakSanitizer reports).
    /// - Throws: `Failure` when the file exists but cannot be read or holds another number of bytes.
    package static func load(path: String, count: Int) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT { return nil }
        guard descriptor >= 0 else { throw Failure.unusable(path: path, errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure.unusable(path: path, errno: errno) }
        guard status.st_size == count else { throw Failure.wrongSize(path: path, expected: count) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
        guard read == count else { throw Failure.unusable(path: path, errno: read < 0 ? errno : EIO) }
        return bytes
    }
}
