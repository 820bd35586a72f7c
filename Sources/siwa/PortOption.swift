import ArgumentParser
import HTTPCore

/// The check of a TCP port given on the command line, which `Int` alone would let wrap around 65,536.
enum PortOption {
    /// The ports a listener may be given; 0 lets the system pick a free one.
    static let range = HTTPServerConfiguration.portRange

    /// - Throws: `ValidationError` naming `option` when `port` is outside `range`.
    static func check(_ port: Int?, _ option: String) throws {
        guard let port, !range.contains(port) else { return }
        throw ValidationError("\(option) must be a port in \(range.lowerBound)...\(range.upperBound), not \(port)")
    }

    /// Stops before anything is made when `what` cannot listen on `hostname:port`, naming the option that changes it.
    /// - Returns: `port`, or for 0 a port free a moment ago, which the system picked.
    @discardableResult
    static func checkFree(hostname: String, port: Int, of what: String, option: String) throws -> Int {
        do {
            return try HTTPServer.checkAddress(hostname: hostname, port: port)
        } catch let error as SocketError {
            throw CannotListen(description: "\(what) cannot listen on \(hostname):\(port) (\(error)); choose another "
                + (error.call.hasPrefix("getaddrinfo(") ? "address with --hostname" : "port with \(option)"))
        }
    }

    /// Why a command could not start listening, and the option to change.
    struct CannotListen: Error, CustomStringConvertible {
        let description: String
    }
}
