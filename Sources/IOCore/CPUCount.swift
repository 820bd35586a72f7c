import Glibc

package enum CPUCount {
    private typealias GetAffinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32

    /// CPUs this process may run on, from `sched_getaffinity(2)` (so `taskset -c 0` gives 1), at least 1.
    /// Glibc's module hides the `_GNU_SOURCE` declaration, so the symbol is looked up at run time.
    package static var usable: Int {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_getaffinity") else { return 1 }
        let getAffinity = unsafeBitCast(symbol, to: GetAffinity.self)
        var mask = [UInt64](repeating: 0, count: 16)
        let status = mask.withUnsafeMutableBytes { getAffinity(0, $0.count, $0.baseAddress!) }
        guard status == 0 else { return 1 }
        return max(1, mask.reduce(0) { $0 + $1.nonzeroBitCount })
    }
}
