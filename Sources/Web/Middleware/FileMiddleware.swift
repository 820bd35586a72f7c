import Foundation
import HTTPCore
#if canImport(Glibc)
import Glibc
#endif

/// Serves the regular files under a public directory for GET and HEAD, before routing; other requests and
/// paths without a file go on to the next responder.
///
/// The path can never leave the directory: dot segments were already resolved by routing and percent-encoded
/// ones are resolved too; segments with `/`, `\`, NUL or a leading `.` (hidden files, `.env`) are refused;
/// the final path is resolved with `realpath(3)` and must still be inside the directory (symlinks out are refused).
/// Responses carry `ETag` and `Last-Modified`; `If-None-Match` / `If-Modified-Since` give 304 (RFC 9110 §13.1).
/// `Cache-Control: no-cache` has a browser ask again, by those validators, before it reuses a copy (RFC 9111
/// §5.2.2.4), so a file changed by an upgrade (a page's script) is never used stale.
/// Files larger than `streamThreshold` are streamed in chunks rather than read into memory.
package struct FileMiddleware: Middleware {
    /// Files up to this size are sent from memory; larger ones are streamed.
    package static let defaultStreamThreshold = 1 << 20
    /// Chunk size when streaming.
    package static let streamChunkSize = 64 * 1024

    let root: String
    let streamThreshold: Int

    /// - Parameters:
    ///   - publicDirectory: The folder to serve, e.g. `Resources/Public`; must exist.
    ///   - streamThreshold: Files larger than this many bytes are streamed.
    package init(publicDirectory: String, streamThreshold: Int = defaultStreamThreshold) throws {
        guard let root = Self.realPath(publicDirectory), Self.fileType(root) == S_IFDIR else {
            throw FileMiddlewareError.directoryNotFound(publicDirectory)
        }
        self.root = root
        self.streamThreshold = streamThreshold
    }

    package func respond(to request: Request, chainingTo next: any Responder) async throws -> Response {
        guard request.method == .GET || request.method == .HEAD else { return try await otherMethod(request, next) }
        guard let file = resolve(request.pathSegments) else { return try await next.respond(to: request) }
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return try await next.respond(to: request) }
        request.servedFile = true
        let size = Int(info.st_size)
        let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
        let etag = "\"\(String(size, radix: 16))-\(String(info.st_mtim.tv_sec, radix: 16))\(String(info.st_mtim.tv_nsec, radix: 16))\""
        var headers: HTTPHeaders = [
            "ETag": etag,
            "Last-Modified": HTTPDate.format(secondsSince1970: Int(info.st_mtim.tv_sec)),
            "Content-Type": MediaType.forFileExtension((file as NSString).pathExtension),
            "Cache-Control": "no-cache",
        ]
        if Self.isNotModified(request.headers, etag: etag, modified: modified) {
            headers.remove(name: "Content-Type")
            return Response(status: .notModified, headers: headers)
        }
        if size > streamThreshold {
            return Response(status: .ok, headers: headers, body: .stream { writer in
                guard let handle = FileHandle(forReadingAtPath: file) else { throw Abort(.notFound) }
                defer { try? handle.close() }
                while let chunk = try handle.read(upToCount: Self.streamChunkSize), !chunk.isEmpty {
                    try await writer.write(Array(chunk))
                }
            })
        }
        guard let bytes = Self.contents(of: file, size: size) else {
            request.servedFile = false
            return try await next.respond(to: request)
        }
        return Response(status: .ok, headers: headers, body: .bytes(bytes))
    }

    /// The bytes of `path`, at most `size` (its size when it was looked at), or nil when it cannot be read. Read
    /// with `open`/`read`: Foundation's `contents(atPath:)` leaks a 4 KiB buffer for every empty file it reads,
    /// which a client could repeat without end. Found by a review.
    static func contents(of path: String, size: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress.map { $0 + filled }, size - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Files answer GET and HEAD only. A request with another method goes on to the routes; when none has the path but
    /// a file does, it is 405 with `Allow` (RFC 9110 §15.5.6), or 204 with `Allow` for OPTIONS (§9.3.7), as a route's
    /// path answers, not 404.
    func otherMethod(_ request: Request, _ next: any Responder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch let error as any AbortError where error.status == .notFound {
            guard resolve(request.pathSegments) != nil else { throw error }
            if request.method == .OPTIONS { return Response(status: .noContent, headers: ["Allow": Self.fileMethods]) }
            throw Abort(.methodNotAllowed, headers: ["Allow": Self.fileMethods])
        }
    }

    /// The methods a file answers, as `Allow` lists them.
    static let fileMethods = "GET, HEAD, OPTIONS"

    /// The real path of the file for `segments`, or nil when it is not safely inside the directory.
    func resolve(_ segments: [String]?) -> String? {
        guard let segments, !segments.isEmpty else { return nil }
        for segment in segments {
            // Byte checks: `String.contains(_:)` with a string goes through Foundation's `range(of:)`.
            guard segment.utf8.first != UInt8(ascii: "."),
                  !segment.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") || $0 == 0 })
            else { return nil }
        }
        let candidate = root + "/" + segments.joined(separator: "/")
        // One `stat` turns away the paths with no file (every API route) before `realpath`, which costs a
        // `readlink` per segment.
        guard Self.fileType(candidate) == S_IFREG, let real = Self.realPath(candidate),
              real.hasPrefix(root + "/") else { return nil }
        return real
    }

    /// `If-None-Match` wins over `If-Modified-Since` (RFC 9110 §13.2.2); ETags compare weakly (§8.8.3.2).
    static func isNotModified(_ headers: HTTPHeaders, etag: String, modified: Date) -> Bool {
        if let match = headers["If-None-Match"] {
            let tags = match.split(separator: ",").map { tag -> Substring in
                let trimmed = tag.trimmingSpaces()
                return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
            }
            return tags.contains("*") || tags.contains(etag[...])
        }
        if let since = headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            return modified <= Date(timeIntervalSince1970: TimeInterval(since))
        }
        return false
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func fileType(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }
}

/// Why a `FileMiddleware` cannot be created.
package enum FileMiddlewareError: Error, Equatable, CustomStringConvertible {
    case directoryNotFound(String)

    package var description: String {
        switch self {
        case .directoryNotFound(let path): "Public directory '\(path)' not found"
        }
    }
}
