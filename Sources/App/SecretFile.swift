import CryptoCore
import Glibc

/// A key kept in a file of its own (mode 0600), made of random bytes the first time it is asked for.
enum SecretFile {
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

    /// The `count` bytes in `path`; when there is no such file, `count` random bytes written there first. The
    /// file is created exclusively, so two processes starting at once end up with the same key; an existing file
    /// of another size is an error, never overwritten.
    static func loadOrCreate(path: String, count: Int) throws -> [UInt8] {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            guard errno == EEXIST else { throw Failure.unusable(path: path, errno: errno) }
            return try load(path: path, count: count)
        }
        defer { close(descriptor) }
        let bytes = try SecureRandom.bytes(count: count)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == count, fsync(descriptor) == 0 else {
            let code = errno
            unlink(path)
            throw Failure.unusable(path: path, errno: code)
        }
        return bytes
    }

    /// Reads the file with `open`/`fstat`/`read` (Foundation's `FileManager.contents` leaks its buffer for an empty
    /// file, which LeakSanitizer reports).
    private static func load(path: String, count: Int) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
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
