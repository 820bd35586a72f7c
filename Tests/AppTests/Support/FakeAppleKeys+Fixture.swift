import CryptoCore
import FakeApple
import Foundation
import TestSupport

extension FakeAppleKeys {
    /// The stand-in's keys for a test folder: the fixed test key (`RSAPrivateKey.fixturePEM`), written to `name`
    /// (`apple.pem` unless given) when the folder has none yet, as `loadOrCreate` would have written a new one.
    /// Generating a 2048-bit key costs about 170 ms of CPU, on the two threads every test of the parallel suite runs
    /// on, and the suite starts a stand-in hundreds of times. A folder that already has a key (a restart) keeps it.
    static func fixture(in directory: URL, named name: String = "apple.pem") throws -> FakeAppleKeys {
        let path = directory.appendingPathComponent(name).path
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: Data(RSAPrivateKey.fixturePEM.utf8),
                                                 attributes: [.posixPermissions: 0o600])
            else { throw FakeAppleError.cannotWriteKeyFile(path) }
        }
        return try loadOrCreate(path: path)
    }
}
