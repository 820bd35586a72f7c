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
}
