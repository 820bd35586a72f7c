import Glibc

/// The sanitizer this test process was built with (`swift test --sanitize=…`, see `Scripts/sanitize`), found at
/// run time from the sanitizer runtime's entry point, since Swift has no `#if` condition for it.
package enum Sanitizer: Sendable {
    case address
    case thread

    package static let active: Sanitizer? = {
        if dlsym(nil, "__tsan_init") != nil { return .thread }
        if dlsym(nil, "__asan_init") != nil { return .address }
        return nil
    }()

    /// How many times longer than in a plain build a timing-based test should allow: the sanitized code runs
    /// 2-5x (ASan) or 5-15x (TSan) slower, and every test shares the same two cooperative threads. Timeouts a
    /// test configures on the server and bounds it asserts on elapsed time are multiplied by it.
    package static let timeScale: Int = {
        switch active {
        case .address: 5
        case .thread: 10
        case nil: 1
        }
    }()
}
