import Foundation
import Testing
@testable import SiwaClient

/// `Retry-After` as the server sends it (delay-seconds, RFC 9110 §10.2.3), and what is not.
struct SiwaErrorTests {
    @Test func retryAfterInSeconds() {
        #expect(SiwaError.retryAfter("10") == .seconds(10))
        #expect(SiwaError.retryAfter(" 5 ") == .seconds(5))
        #expect(SiwaError.retryAfter("0") == .seconds(0))
    }

    @Test(arguments: [nil, "", "-1", "soon", "Wed, 21 Oct 2026 07:28:00 GMT", "1.5"])
    func anythingElseIsNoRetryAfter(_ header: String?) {
        #expect(SiwaError.retryAfter(header) == nil)
    }

    @Test func nameIsFormattedFromItsParts() {
        let credential = AppleIDCredential(identityToken: nil, authorizationCode: nil, user: "u",
                                           fullName: PersonNameComponents(givenName: "Jane", familyName: "Appleseed"))
        #expect(credential.formattedName == "Jane Appleseed")
        #expect(AppleIDCredential(identityToken: nil, authorizationCode: nil, user: "u").formattedName == nil)
        #expect(AppleIDCredential(identityToken: nil, authorizationCode: nil, user: "u",
                                  fullName: PersonNameComponents()).formattedName == nil)
    }
}
