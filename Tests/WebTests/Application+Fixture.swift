import HTTPCore
import Logging
@testable import Web

extension Application {
    /// A fresh application for one test; configure, then send requests through `testing`.
    static func fixture(trustProxy: Bool = false) -> Application {
        Application(trustProxy: trustProxy, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    }
}

struct ErrorBody: Decodable, Equatable {
    let error: Bool
    let reason: String
}
