extension HTTPHeadParser {
    /// The framing and connection fields seen while reading a header section.
    struct FieldSummary {
        var hostCount = 0
        var hostValid = true
        var hostEmpty = false
        var contentLength: Int?
        var contentLengthInvalid = false
        var contentLengthConflict = false
        var transferCodings: [Bool]?
        var transferCodingsInvalid = false
        var connectionClose = false
        var connectionKeepAlive = false
        var expectation: Expectation = .none

        enum TransferCoding { case chunked, unsupported, invalid }
        enum Expectation { case none, `continue`, unsupported }

        mutating func note(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(HTTPParseError) {
            switch name.count {
            case 4 where HTTPGrammar.equalsLowercase(name, "host"):
                hostCount += 1
                if !HTTPHeadParser.isValidHost(value) { hostValid = false }
                if value.isEmpty { hostEmpty = true }
            case 14 where HTTPGrammar.equalsLowercase(name, "content-length"):
                noteContentLength(value)
            case 17 where HTTPGrammar.equalsLowercase(name, "transfer-encoding"):
                noteTransferEncoding(value)
            case 10 where HTTPGrammar.equalsLowercase(name, "connection"):
                noteConnection(value)
            case 6 where HTTPGrammar.equalsLowercase(name, "expect"):
                noteExpect(value)
            default:
                break
            }
        }

        /// `Expect = #expectation` (RFC 9110 §10.1.1): `100-continue`, in any case, is the one expectation known;
        /// any other element is unsupported (417), and so is a field with no element at all. Empty list elements
        /// are ignored (§5.6.1.2). Found by a review:
        /// `100-continue,` and `, 100-continue` were 417.
        mutating func noteExpect(_ value: UnsafeRawBufferPointer) {
            var sawElement = false
            Self.forEachListElement(value) { element in
                sawElement = true
                if HTTPGrammar.equalsLowercase(element, "100-continue") {
                    if expectation == .none { expectation = .`continue` }
                } else {
                    expectation = .unsupported
                }
            }
            if !sawElement { expectation = .unsupported }
        }

        /// The connection options `close` and `keep-alive` (RFC 9112 §9.3, §9.6), in any case, anywhere in the list.
        mutating func noteConnection(_ value: UnsafeRawBufferPointer) {
            Self.forEachListElement(value) { token in
                if HTTPGrammar.equalsLowercase(token, "close") { connectionClose = true }
                if HTTPGrammar.equalsLowercase(token, "keep-alive") { connectionKeepAlive = true }
            }
        }

        /// `Content-Length = 1*DIGIT`; a list of identical values counts as one (RFC 9110 §8.6, RFC 9112 §6.3).
        mutating func noteContentLength(_ value: UnsafeRawBufferPointer) {
            var sawElement = false
            Self.forEachListElement(value, keepEmpty: true) { element in
                sawElement = true
                guard element.count > 0, element.count <= 18, element.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    contentLengthInvalid = true
                    return
                }
                let number = element.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                if let existing = contentLength, existing != number { contentLengthConflict = true }
                contentLength = number
            }
            if !sawElement { contentLengthInvalid = true }
        }

        /// Only `chunked`, once and last, is understood (RFC 9112 §6.1, §7); anything else is 501. Several
        /// field lines form one list (RFC 9110 §5.3).
        mutating func noteTransferEncoding(_ value: UnsafeRawBufferPointer) {
            var codings = transferCodings ?? []
            Self.forEachListElement(value, keepEmpty: true) { element in
                guard element.count > 0, element.allSatisfy(HTTPGrammar.isTokenChar) else {
                    transferCodingsInvalid = true
                    return
                }
                codings.append(HTTPGrammar.equalsLowercase(element, "chunked"))
            }
            transferCodings = codings
        }

        var transferEncoding: TransferCoding? {
            guard let codings = transferCodings else { return nil }
            if transferCodingsInvalid || codings.isEmpty { return .invalid }
            if codings == [true] { return .chunked }
            if codings.filter({ $0 }).count > 1 || (codings.contains(true) && codings.last != true) { return .invalid }
            return .unsupported
        }

        /// Decides framing, persistence and expectations; refuses ambiguous framing (RFC 9112 §6.3, §3.2).
        func apply(to head: inout HTTPRequestHead, limits: HTTPLimits) throws(HTTPParseError) {
            let version = head.request.version
            if version.minor >= 1 {
                if hostCount == 0 { throw HTTPParseError(.missingHost) }
            }
            if hostCount > 1 { throw HTTPParseError(.duplicateHost) }
            if !hostValid { throw HTTPParseError(.invalidHost) }
            if hostEmpty, version.minor >= 1, head.request.target.hasPrefix("/") {
                throw HTTPParseError(.invalidHost)
            }
            if let coding = transferEncoding {
                if contentLength != nil || contentLengthInvalid { throw HTTPParseError(.contentLengthWithTransferEncoding) }
                if version.minor == 0 { throw HTTPParseError(.invalidTransferEncoding) }
                switch coding {
                case .chunked: head.framing = .chunked
                case .unsupported: throw HTTPParseError(.unsupportedTransferEncoding)
                case .invalid: throw HTTPParseError(.invalidTransferEncoding)
                }
            } else if contentLengthInvalid {
                throw HTTPParseError(.invalidContentLength)
            } else if contentLengthConflict {
                throw HTTPParseError(.conflictingContentLength)
            } else if let length = contentLength {
                guard length <= limits.maxBodySize else { throw HTTPParseError(.bodyTooLarge) }
                head.framing = length > 0 ? .length(length) : .none
            }
            head.keepAlive = version.minor >= 1 ? !connectionClose : (connectionKeepAlive && !connectionClose)
            switch expectation {
            case .none: break
            case .`continue`: head.expectsContinue = version.minor >= 1
            case .unsupported: throw HTTPParseError(.unsupportedExpectation)
            }
        }

        /// Calls `body` with each comma-separated element, OWS trimmed (RFC 9110 §5.6.1).
        static func forEachListElement(_ value: UnsafeRawBufferPointer, keepEmpty: Bool = false,
                                       _ body: (UnsafeRawBufferPointer) -> Void) {
            var start = 0
            for i in 0...value.count where i == value.count || value[i] == 0x2C {
                let element = HTTPGrammar.trimmed(UnsafeRawBufferPointer(rebasing: value[start..<i]))
                if element.count > 0 || keepEmpty { body(element) }
                start = i + 1
            }
        }
    }
}
