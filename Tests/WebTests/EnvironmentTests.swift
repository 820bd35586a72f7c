import Foundation
import Glibc
import Testing
@testable import Web

struct EnvironmentTests {
    @Test func dotEnvParsesCommentsQuotesAndExport() throws {
        let text = """
            # comment
            HOSTNAME=0.0.0.0
            export PORT = 9000
            EMPTY=
            NAME="Jane \\"J\\" Doe" # trailing comment
            RAW='no $escapes\\n here'
            MULTI="line1\\nline2"
            INLINE=value # comment
            HASH=a#b
            WINDOWS=crlf\r

            """
        let pairs = try DotEnv.parse(text)
        let values = Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        #expect(values == [
            "HOSTNAME": "0.0.0.0", "PORT": "9000", "EMPTY": "", "NAME": "Jane \"J\" Doe",
            "RAW": "no $escapes\\n here", "MULTI": "line1\nline2", "INLINE": "value", "HASH": "a#b", "WINDOWS": "crlf",
        ])
    }

    @Test(arguments: [
        ("JUSTTEXT", ConfigurationError.malformedDotEnv(line: 1, message: "expected KEY=VALUE")),
        ("1BAD=x", ConfigurationError.malformedDotEnv(line: 1, message: "invalid variable name")),
        ("A=1\nB=\"open", ConfigurationError.malformedDotEnv(line: 2, message: "unterminated quote")),
        ("A='x' y", ConfigurationError.malformedDotEnv(line: 1, message: "unexpected text after the closing quote")),
    ])
    func malformedDotEnvNamesTheLine(text: String, error: ConfigurationError) {
        #expect(throws: error) { try DotEnv.parse(text) }
    }

    /// A bad line is reported in the file actually read (`--env-file`), not as `.env`; a pipe or a device is read
    /// to its end (`/dev/null` is empty). Found by a review.
    @Test func aDotEnvFileIsNamedAndMayBeAPipeOrADevice() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("production-\(UUID().uuidString).env").path
        try "PORT=9000\ngarbage\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigurationError.malformedDotEnv(line: 2, message: "expected KEY=VALUE", file: path)) {
            try DotEnv.load(path: path)
        }
        #expect("\(ConfigurationError.malformedDotEnv(line: 2, message: "x", file: path))" == "\(path) line 2: x")
        #expect(try DotEnv.load(path: "/dev/null") == [:])
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        let text = Array("PORT=7001\n".utf8)
        #expect(write(pipe[1], text, text.count) == text.count)
        close(pipe[1])
        defer { close(pipe[0]) }
        #expect(try DotEnv.load(path: "/proc/self/fd/\(pipe[0])") == ["PORT": "7001"])
    }

    /// A dotenv path that is a folder, or a file that is not UTF-8, says which, without a "line 0". Found by a
    /// black-box review.
    @Test func anUnreadableDotEnvSaysWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: ConfigurationError.malformedDotEnv(line: 0, message: "is a folder, not a file", file: folder)) {
            try DotEnv.load(path: folder)
        }
        let latin1 = folder + "/latin1.env"
        try Data([0x41, 0x3D, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: latin1))
        #expect(throws: ConfigurationError.malformedDotEnv(line: 0, message: "is not UTF-8 text", file: latin1)) {
            try DotEnv.load(path: latin1)
        }
        #expect("\(ConfigurationError.malformedDotEnv(line: 0, message: "is not UTF-8 text", file: latin1))"
            == "\(latin1) is not UTF-8 text")
        // A link to nothing (a secrets volume not mounted) is named; found by a review, it was read as no file.
        let dangling = folder + "/.env"
        #expect(symlink(folder + "/secrets/env", dangling) == 0)
        #expect(throws: ConfigurationError.malformedDotEnv(
            line: 0, message: "is a symbolic link to \(folder)/secrets/env, which does not exist", file: dangling)) {
            try DotEnv.load(path: dangling)
        }
        #expect(try DotEnv.load(path: folder + "/absent.env") == [:], "no file at all is no variables")
    }

    @Test func processEnvironmentWinsOverDotEnv() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString)").path
        try "PORT=9000\nDATABASE_PATH=file.sqlite\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let env = try Environment.load(dotEnvPath: path, processEnvironment: ["PORT": "7000"])
        #expect(try env.get("PORT", as: Int.self) == 7000)
        #expect(env.get("DATABASE_PATH") == "file.sqlite")
        let noFile = try Environment.load(dotEnvPath: path + ".missing", processEnvironment: [:])
        #expect(noFile.values.isEmpty)
    }

    /// A variable `.env` sets more than once is named with its lines (the last one counts); found by a review, it
    /// was taken silently.
    @Test func variablesSetMoreThanOnceInDotEnvAreNamedWithTheirLines() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("env-\(UUID().uuidString)").path
        try "PORT=9000\n# a comment\nHOSTNAME=0.0.0.0\nexport PORT=9001\nPORT=9002\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let env = try Environment.load(dotEnvPath: path, processEnvironment: [:])
        #expect(env.get("PORT") == "9002")
        #expect(env.repeatedInDotEnv == ["PORT": [1, 4, 5]])
        // Set in the process, none of the file's lines counts: nothing to say.
        #expect(try Environment.load(dotEnvPath: path, processEnvironment: ["PORT": "7000"]).repeatedInDotEnv.isEmpty)
        #expect(try Environment.load(dotEnvPath: "/dev/null", processEnvironment: [:]).repeatedInDotEnv.isEmpty)
    }

    @Test func typedAccessNamesMissingAndMalformedVariables() throws {
        let env = Environment(["PORT": "80a", "TRUST_PROXY": "yes", "IDS": "com.a, com.b,,", "BLANK": "", "RATE": "0.5"])
        #expect(throws: ConfigurationError.malformed(name: "PORT", expected: "an integer")) { try env.get("PORT", as: Int.self) }
        #expect(try env.get("TRUST_PROXY", as: Bool.self) == true)
        #expect(try env.require("IDS", as: [String].self) == ["com.a", "com.b"])
        #expect(try env.get("RATE", as: Double.self) == 0.5)
        #expect(try env.get("BLANK", as: Int.self) == nil)
        #expect(throws: ConfigurationError.missing("WEBSITE_APPLICATION_IDENTIFIER")) {
            try env.require("WEBSITE_APPLICATION_IDENTIFIER")
        }
        #expect(ConfigurationError.missing("X").description == "Missing required environment variable X")
        #expect(ConfigurationError.malformed(name: "PORT", expected: "an integer").description == "Environment variable PORT must be an integer")
    }

    @Test func staticAccessReadsTheProcessEnvironment() throws {
        #expect(Environment.get("PATH") != nil)
        #expect(try Environment.get("SIWA_SURELY_UNSET_VARIABLE", as: Int.self) == nil)
    }
}
