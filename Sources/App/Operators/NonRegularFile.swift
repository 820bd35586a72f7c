import Glibc

/// What stands at a path an operator names (`DATABASE_PATH`, `--out`) when it is not a regular file, in words for
/// the one line that refuses it.
enum NonRegularFile: String {
    case folder = "a folder"
    case symbolicLink = "a symbolic link"
    case device = "a device"
    case fifo = "a FIFO"
    case socket = "a socket"

    /// What is at `path` when it is there and is not a regular file; nil for a regular file, or nothing.
    /// - Parameter followingLinks: look through a symbolic link (`stat`), or at the link itself (`lstat`).
    static func at(_ path: String, followingLinks: Bool) -> NonRegularFile? {
        var status = stat()
        guard (followingLinks ? stat(path, &status) : lstat(path, &status)) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return .folder
        case S_IFLNK: return .symbolicLink
        case S_IFCHR, S_IFBLK: return .device
        case S_IFIFO: return .fifo
        default: return .socket
        }
    }
}
