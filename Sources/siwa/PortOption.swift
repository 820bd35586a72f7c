import ArgumentParser
import HTTPCore
import IOCore

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
    /// - Returns: `port`, or for 0 a port free a moment ago, below the kernel's ephemeral range: the listener binds it
    ///   only later, and a port the system picked from that range could meanwhile be taken by any outgoing
    ///   connection (found by a CI run: `siwa dev --port 0` failed with `EADDRINUSE` beside the parallel tests).
    @discardableResult
    static func checkFree(hostname: String, port: Int, of what: String, option: String) throws -> Int {
        if port == 0 {
            for _ in 0..<100 {
                let candidate = EphemeralPorts.candidateBelow()
                if let free = try? HTTPServer.checkAddress(hostname: hostname, port: candidate) { return free }
            }
        }
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
