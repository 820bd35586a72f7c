import Foundation
import IOCore
import Testing

/// The range the kernel gives outgoing connections, and the ports picked below it for listeners bound later.
struct EphemeralPortsTests {
    @Test func theRangeStartIsTheFilesFirstNumber() throws {
        let text = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let first = try #require(text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        #expect(EphemeralPorts.rangeStart() == first)
    }

    @Test func candidatesStayBelowTheRange() {
        let end = max(EphemeralPorts.rangeStart(), EphemeralPorts.lowestCandidate + 1000)
        for _ in 0..<1000 {
            #expect((EphemeralPorts.lowestCandidate..<end).contains(EphemeralPorts.candidateBelow()))
        }
    }
}
