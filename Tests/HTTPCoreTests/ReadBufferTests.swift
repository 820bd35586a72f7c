import Testing
@testable import HTTPCore

struct ReadBufferTests {
    @Test func releasedStorageIsAllocatedAgainOnTheNextRead() {
        let buffer = ReadBuffer(capacity: 64)
        [UInt8]("GET".utf8).withUnsafeBytes { buffer.append($0) }
        buffer.releaseIfEmpty()
        #expect(buffer.capacity == 64, "a buffer holding unread bytes is kept")
        buffer.consume(3)
        buffer.releaseIfEmpty()
        #expect(buffer.capacity == 0)
        buffer.reserveTail(minimum: 2048)
        #expect(buffer.capacity == ReadBuffer.minimumCapacity)
        let bytes = [UInt8]("GET / HTTP/1.1\r\n".utf8)
        bytes.withUnsafeBytes { buffer.append($0) }
        #expect(Array(buffer.readable) == bytes)
    }

    @Test func growsFromEmptyPastTheMinimum() {
        let buffer = ReadBuffer(capacity: 64)
        buffer.releaseIfEmpty()
        let large = [UInt8](repeating: 0x61, count: ReadBuffer.minimumCapacity + 1)
        large.withUnsafeBytes { buffer.append($0) }
        #expect(buffer.readableCount == large.count)
        #expect(buffer.capacity >= large.count)
    }
}
