import Foundation

/// The file the sending team hands over: JSON Lines (one JSON object per line), each
/// `{"user_id": "<id as the API returns it>", "transfer_sub": "<transfer identifier>"}`. It never holds a `sub` or an
/// e-mail address: Apple asks the sending team to exclude both from what it gives the recipient ("Transferring your
/// apps and users to another team", "Protect user privacy").
enum TransferFile {
    /// One line of the file.
    struct Line: Sendable, Equatable {
        /// The line's number, from 1.
        var number: Int
        /// `user_id` as written; it names a user only when it is one of this database's ids.
        var userID: String
        var transferSub: String
    }

    /// Why a file was refused before anything changed.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        var path: String
        var line: Int
        var reason: String
        var description: String { "\(path) line \(line): \(reason); nothing was changed" }
    }

    /// The longest line read, in bytes: far above any id and identifier, far below what would hurt memory.
    static let maximumLineLength = 4096

    /// Reads every line of `path`; blank lines are skipped.
    /// - Throws: `Malformed` naming the first line that is not a JSON object with string `user_id` and
    ///   `transfer_sub`, or that names a user an earlier line named (which of the two is right, the file cannot
    ///   say; found by an audit: the last one won, silently); `OperatorError` when the file cannot be read.
    static func read(_ path: String) throws -> [Line] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OperatorError("\(path): cannot read the transfer file")
        }
        var lines: [Line] = []
        var firstLineOfUser: [String: Int] = [:]
        var number = 0
        for raw in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty { continue }
            guard raw.count <= maximumLineLength else {
                throw Malformed(path: path, line: number, reason: "longer than \(maximumLineLength) bytes")
            }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
                throw Malformed(path: path, line: number, reason: "not a JSON object")
            }
            guard let userID = object["user_id"] as? String, !userID.isEmpty else {
                throw Malformed(path: path, line: number, reason: "no user_id string")
            }
            guard let transferSub = object["transfer_sub"] as? String, !transferSub.isEmpty else {
                throw Malformed(path: path, line: number, reason: "no transfer_sub string")
            }
            // Found by a review: a NUL was stored on SQLite and refused by PostgreSQL with a raw SQL error, after the
            // batches before it were applied.
            guard !transferSub.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw Malformed(path: path, line: number, reason: "transfer_sub holds a control character")
            }
            if let first = firstLineOfUser.updateValue(number, forKey: userID.lowercased()) {
                throw Malformed(path: path, line: number, reason: "user_id \(userID) is on line \(first) too")
            }
            lines.append(Line(number: number, userID: userID, transferSub: transferSub))
        }
        return lines
    }

    /// One line for `userID` and `transferSub`, with its newline.
    static func line(userID: UUID, transferSub: String) throws -> Data {
        let object = ["user_id": userID.uuidString.lowercased(), "transfer_sub": transferSub]
        var data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
