import JSON

extension JSONValue {
    /// A JOSE header or payload parsed as strict JSON; a defect is ``JWTError`` `.malformed`, as every other defect of
    /// a token is.
    package init(joseJSON bytes: [UInt8]) throws(JWTError) {
        do {
            self = try JSONValue(parsing: bytes)
        } catch {
            throw JWTError(.malformed, detail: "invalid JSON")
        }
    }

    /// The members of a JOSE JSON object, in order; a defect (invalid JSON, not an object, a repeated name) is
    /// ``JWTError`` `.malformed`.
    package static func joseObjectMembers(_ bytes: [UInt8]) throws(JWTError) -> [JSONMember] {
        do {
            return try parseObjectMembers(bytes)
        } catch {
            throw JWTError(.malformed, detail: "not a JSON object")
        }
    }
}
