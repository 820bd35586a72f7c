import JSON
/// A decoded JOSE header (RFC 7515 §4).
public struct JOSEHeader: Sendable, Equatable {
    public static func == (lhs: JOSEHeader, rhs: JOSEHeader) -> Bool { lhs.members == rhs.members }

    /// Header members that point at keys elsewhere; we never fetch or trust them (RFC 8725 §3.10).
    public static let keyReferenceMembers: Set<String> = ["jku", "x5u", "jwk", "x5c"]

    /// `alg` exactly as written (RFC 7515 §4.1.1); not yet checked against any allow-list.
    public var algorithm: String
    /// `kid` (RFC 7515 §4.1.4).
    public var keyID: String?
    /// `typ` (RFC 7515 §4.1.9).
    public var type: String?
    /// `crit` (RFC 7515 §4.1.11): extensions the producer says must be understood.
    public var critical: [String]?
    /// Which of `jku`, `x5u`, `jwk`, `x5c` are present.
    public var keyReferences: Set<String>
    /// Every member, in document order.
    package var memberList: [JSONMember]

    /// Every member, for callers that need more.
    public var members: [String: JSONValue] { memberList.dictionary }

    /// Decodes a header from its JSON bytes.
    /// - Throws: ``JWTError`` `.malformed` if it is not a JSON object, lacks a string `alg`, or
    ///   has `kid`, `typ` or `crit` of the wrong type.
    public init(json: [UInt8]) throws {
        let members = try JSONValue.joseObjectMembers(json)
        var algorithm: String?, keyID: String?, type: String?, critical: [String]?
        var references = Set<String>()
        for member in members {
            let name = member.name, value = member.value
            switch name {
            case "alg": algorithm = try Self.string(value, name)
            case "kid": keyID = try Self.string(value, name)
            case "typ": type = try Self.string(value, name)
            case "crit":
                let names = value.arrayValue?.compactMap(\.stringValue)
                guard let names, names.count == value.arrayValue?.count else {
                    throw JWTError(.malformed, detail: "crit is not an array of strings")
                }
                critical = names
            case "jku", "x5u", "jwk", "x5c": references.insert(name)
            default: break
            }
        }
        guard let algorithm else { throw JWTError(.malformed, detail: "header lacks alg") }
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.critical = critical
        self.keyReferences = references
        self.memberList = members
    }

    private static func string(_ value: JSONValue, _ name: String) throws -> String {
        guard let string = value.stringValue else { throw JWTError(.malformed, detail: "\(name) is not a string") }
        return string
    }

    /// Applies a use's policy, in this order, before any key is looked up:
    /// 1. `alg` must be in `allowed` (RFC 8725 §3.1), so `none`, HMAC and unknown values fail;
    /// 2. `crit` must be absent: we implement no extensions (RFC 7515 §4.1.11);
    /// 3. `jku`, `x5u`, `jwk`, `x5c` must be absent (RFC 8725 §3.10); Apple sends only `kid` and `alg`.
    /// - Returns: the allowed algorithm.
    public func checkPolicy(allowing allowed: Set<JWSAlgorithm>) throws -> JWSAlgorithm {
        guard let alg = JWSAlgorithm(rawValue: algorithm), allowed.contains(alg) else {
            throw JWTError(.unsupportedAlgorithm, detail: "alg not allowed")
        }
        if critical != nil { throw JWTError(.criticalHeader, detail: "unsupported crit extension") }
        if !keyReferences.isEmpty {
            throw JWTError(.forbiddenHeader, detail: "header carries \(keyReferences.sorted().joined(separator: ","))")
        }
        return alg
    }
}
