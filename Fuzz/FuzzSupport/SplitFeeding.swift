/// A split point that depends on the whole input, so the fuzzer can move it by changing any byte.
package func splitPoint(_ bytes: UnsafeRawBufferPointer, salt: UInt64) -> Int {
    guard bytes.count > 1 else { return 0 }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ salt
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return Int(hash % UInt64(bytes.count))
}

/// Feeds `bytes` to an incremental parser whole, in three pieces cut at data-derived points, and (up to 256
/// bytes) one byte at a time; every feeding must give the same outcome. Returns the whole-input outcome.
package func checkSplitsAgree<Outcome: Equatable>(
    _ bytes: UnsafeRawBufferPointer, run: ([UnsafeRawBufferPointer]) -> Outcome
) -> Outcome {
    let whole = run([bytes])
    let a = splitPoint(bytes, salt: 1), b = splitPoint(bytes, salt: 2)
    let (first, second) = (min(a, b), max(a, b))
    let split = run([UnsafeRawBufferPointer(rebasing: bytes[0..<first]),
                     UnsafeRawBufferPointer(rebasing: bytes[first..<second]),
                     UnsafeRawBufferPointer(rebasing: bytes[second...])])
    guard whole == split else {
        fatalError("split at \(first), \(second) changes the outcome:\n\(whole)\n---\n\(split)")
    }
    if bytes.count <= 256 {
        let trickled = run((0..<bytes.count).map { UnsafeRawBufferPointer(rebasing: bytes[$0..<($0 + 1)]) })
        guard whole == trickled else { fatalError("byte-by-byte feed changes the outcome:\n\(whole)\n---\n\(trickled)") }
    }
    return whole
}
