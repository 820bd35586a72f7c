import Testing
@testable import Web

struct RequestIDGeneratorTests {
    @Test func idsAreSixteenHexDigitsAndDistinct() {
        let generator = RequestIDGenerator()
        let ids = (0..<1000).map { _ in generator.next() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) })
    }

    @Test func applicationsDrawDifferentPrefixes() {
        let first = Set((0..<8).map { _ in String(RequestIDGenerator().next().prefix(8)) })
        #expect(first.count > 1)
    }
}
