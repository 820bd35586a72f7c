/// One member of a JSON object, kept in document order.
///
/// The top level of a JOSE header or a claims set is read as a list of members rather than a
/// dictionary: with a dozen members, a linear duplicate check is cheaper than hashing, and the
/// dictionary is built only if someone asks for it.
package struct JSONMember: Equatable, Sendable {
    package var name: String
    package var value: JSONValue
}

extension [JSONMember] {
    /// The members as a dictionary (names are unique: the parser refuses duplicates).
    package var dictionary: [String: JSONValue] {
        var result = [String: JSONValue](minimumCapacity: count)
        for member in self { result[member.name] = member.value }
        return result
    }
}

extension JSONValue {
    /// Parses strict JSON whose top level must be an object, returning its members in order.
    /// - Throws: ``JSONError`` for invalid JSON, a non-object, or a duplicate name.
    package static func parseObjectMembers(_ bytes: [UInt8]) throws -> [JSONMember] {
        do {
            return try JSONParser.parseObjectMembers(bytes)
        } catch {
            throw JSONError(detail: "not a JSON object")
        }
    }
}
