/// A growable byte buffer for one connection's input: bytes are read into its free tail and consumed from the front.
final class ReadBuffer {
    private(set) var storage: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Start of unconsumed bytes.
    private(set) var readerIndex = 0
    /// End of received bytes.
    private(set) var writerIndex = 0

    /// The smallest storage allocated when the buffer grows from empty.
    static let minimumCapacity = 4096

    init(capacity: Int = minimumCapacity) {
        self.capacity = max(capacity, 64)
        storage = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var readableCount: Int { writerIndex - readerIndex }

    /// The unconsumed bytes; valid until the next mutation.
    var readable: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage + readerIndex, count: writerIndex - readerIndex)
    }

    func consume(_ count: Int) {
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
        }
    }

    /// Makes room for at least `minimum` bytes after `writerIndex`, compacting first, growing if needed.
    func reserveTail(minimum: Int) {
        if capacity - writerIndex >= minimum { return }
        if readerIndex > 0 {
            let count = readableCount
            if count > 0 { (storage).copyMemory(from: storage + readerIndex, byteCount: count) }
            readerIndex = 0
            writerIndex = count
            if capacity - writerIndex >= minimum { return }
        }
        var newCapacity = max(capacity * 2, Self.minimumCapacity)
        while newCapacity - writerIndex < minimum { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: storage, byteCount: writerIndex)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }

    /// The free tail to read into; call `didWrite(_:)` with the count stored.
    var writableTail: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage + writerIndex, count: capacity - writerIndex)
    }

    func didWrite(_ count: Int) { writerIndex += count }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserveTail(minimum: bytes.count)
        writableTail.copyMemory(from: bytes)
        didWrite(bytes.count)
    }

    /// Frees the storage of an empty buffer, for a keep-alive connection that waits idle (10,000 of them should
    /// not hold 40 MB of read buffers); the next `reserveTail` allocates again.
    func releaseIfEmpty() {
        guard readableCount == 0, capacity > 0 else { return }
        storage.deallocate()
        storage = UnsafeMutableRawPointer.allocate(byteCount: 0, alignment: 16)
        capacity = 0
        readerIndex = 0
        writerIndex = 0
    }

    /// Returns to a small buffer when a large request has been consumed, so idle connections stay cheap.
    func shrinkIfIdle(to small: Int) {
        guard readableCount == 0, capacity > small * 4 else { return }
        storage.deallocate()
        storage = UnsafeMutableRawPointer.allocate(byteCount: small, alignment: 16)
        capacity = small
        readerIndex = 0
        writerIndex = 0
    }
}
