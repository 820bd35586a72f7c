import TestSupport
import Foundation
import Testing
@testable import HTTPCore

/// h2o's HTTP/1 fuzzer seeds: every seed through the parser, a sample through a live server.
/// Oracle (SOURCE.txt): no crash, no hang, well-formed HTTP/1.x answers or a close, and a normal request
/// still served afterwards.
@Suite(.timeLimit(.minutes(2)), .vectors("h2o-fuzz"))
struct H2OFuzzCorpusTests {
    static let marker = Array("\n--MARK--\n".utf8)

    /// The packets h2o's driver writes: each segment followed by a marker; a file without markers is sent whole.
    static func packets(_ seed: [UInt8]) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var start = 0
        var i = 0
        while i + marker.count <= seed.count {
            if seed[i] == marker[0], Array(seed[i..<(i + marker.count)]) == marker {
                packets.append(Array(seed[start..<i]))
                i += marker.count
                start = i
            } else {
                i += 1
            }
        }
        return packets.isEmpty ? [seed] : Array(packets.prefix(20))
    }

    static func seeds() async throws -> [[UInt8]]? {
        guard let folder = TestVectors.folder("h2o-fuzz") else { return nil }
        let archive = folder.appendingPathComponent("http1-corpus.tar.gz").path
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("h2o-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: target) }
        let (status, _) = try await TLSServerTests.run(["tar", "-xzf", archive, "-C", target.path])
        try #require(status == 0)
        var seeds: [[UInt8]] = []
        let enumerator = FileManager.default.enumerator(at: target, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            seeds.append(Array(try Data(contentsOf: url)))
        }
        return seeds
    }

    @Test func everySeedThroughTheParser() async throws {
        guard let seeds = try await Self.seeds() else { return }
        #expect(seeds.count > 1900)
        let limits = HTTPLimits()
        var parsed = 0
        var refused = 0
        for seed in seeds {
            var parser = HTTPRequestParser(limits: limits)
            let buffer = ReadBuffer(capacity: 256)
            feeding: for packet in Self.packets(seed) {
                packet.withUnsafeBytes { buffer.append($0) }
                do {
                    while true {
                        switch try parser.next(buffer) {
                        case .needMore: continue feeding
                        case .head: continue
                        case .request: parsed += 1
                        }
                    }
                } catch {
                    refused += 1
                    break feeding
                }
            }
            #expect(buffer.readableCount <= limits.maxHeaderSectionSize + 65536)
        }
        #expect(parsed + refused > 0)
    }

    @Test func sampleThroughALiveServer() async throws {
        guard let seeds = try await Self.seeds() else { return }
        let limits = HTTPLimits(headerTimeout: .milliseconds(300), idleTimeout: .milliseconds(300),
                                bodyReadTimeout: .milliseconds(300))
        try await withServer(limits: limits) { _, port in
            for (index, seed) in seeds.enumerated() where index % 25 == 0 {
                let client = try RawClient(port: port, timeoutMilliseconds: 2000)
                for packet in Self.packets(seed) where !packet.isEmpty { try? client.send(packet) }
                client.shutdownWrite()
                let answer = await client.readToEnd()
                #expect(answer.isEmpty || answer.starts(with: Array("HTTP/1.1 ".utf8)), "seed \(index)")
            }
            let client = try RawClient(port: port)
            try client.send("GET /still-alive HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(try await client.readResponse().text == "GET /still-alive 0\n")
        }
    }
}
