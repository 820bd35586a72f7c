import App
import ArgumentParser
import Glibc

/// `siwa users show|export|delete`: user support for requests that arrive by email.
struct UsersCommand: CommandGroupCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Show, export or delete one user (support requests, GDPR access and erasure).",
        subcommands: [Show.self, Export.self, Delete.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print what is stored about one user as JSON (no token, hash or refresh token)."
        )
        @Argument(help: "The user's id, Apple sub, or email address.")
        var user: String
        @OptionGroup var options: EnvFileOption

        func run() async throws {
            try await OperatorFailure.report { print(try await UserSupport(options.load()).show(user)) }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print everything stored about one user as JSON: their copy under GDPR articles 15 and 20."
        )
        @Argument(help: "The user's id.")
        var id: String
        @OptionGroup var options: EnvFileOption

        func run() async throws {
            try await OperatorFailure.report { print(try await UserSupport(options.load()).export(id)) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete one user as DELETE /api/users/me does: revoke at Apple, then delete everything."
        )
        @Argument(help: "The user's id.")
        var id: String
        @Flag(help: "Do not ask; without it, the command asks on the terminal and refuses when there is none.")
        var yes = false
        @OptionGroup var options: EnvFileOption

        func run() async throws {
            try await OperatorFailure.report {
                let support = UserSupport(try options.load())
                print(try await support.delete(id) { record in try yes || Self.ask(record) })
            }
        }

        /// Asks on the terminal; refuses when standard input is not one.
        static func ask(_ record: UserRecord) throws -> Bool {
            guard isatty(0) == 1 else {
                throw OperatorError("refusing to delete without --yes: standard input is not a terminal to ask on")
            }
            OperatorFailure.writeError("Delete user \(record.id) (\(record.email)) with "
                + "\(record.bearerTokens.count) bearer token(s), \(record.sessions.count) session(s) and "
                + "\(record.appleClientIDs.count) Apple client(s)? Type yes to delete: ", newline: false)
            return readLine()?.trimmingCharacters(in: .whitespaces) == "yes"
        }
    }
}
