import TestSupport
import Testing

struct TestVectorsTests {
    /// Under CI the vectors must be there; elsewhere their absence is only noted.
    @Test func vectorsArePresentUnderCI() {
        if TestVectors.isCI {
            #expect(TestVectors.isPresent, "test vectors missing at \(TestVectors.directory.path)")
        } else if !TestVectors.isPresent {
            print("note: vector tests skipped: \(TestVectors.directory.path) not found")
        }
    }
}
