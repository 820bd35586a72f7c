import HTTPCore

extension Response {
    /// `encodable` as JSON, `Content-Type: application/json; charset=utf-8`.
    package static func json(_ encodable: some Encodable, status: HTTPStatus = .ok) throws -> Response {
        let data = try JSONCoding.encoder().encode(encodable)
        return Response(status: status, headers: ["Content-Type": MediaType.json], body: .bytes(Array(data)))
    }

    /// An HTML page, `Content-Type: text/html; charset=utf-8`. The text is sent as is: escape what you interpolate.
    package static func html(_ html: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": MediaType.html], body: .bytes(Array(html.utf8)))
    }

    /// A redirect to `location` (RFC 9110 §15.4) with an empty body.
    ///
    /// Control characters and spaces in `location` are percent-encoded, so it cannot split the header.
    package static func redirect(to location: String, type: RedirectType = .seeOther) -> Response {
        var safe: [UInt8] = []
        for byte in location.utf8 {
            if byte <= 0x20 || byte == 0x7F {
                safe += Array("%".utf8) + Array(String(byte, radix: 16, uppercase: true).leftPadded(to: 2).utf8)
            } else {
                safe.append(byte)
            }
        }
        return Response(status: type.status, headers: ["Location": String(decoding: safe, as: UTF8.self)])
    }

    /// How a redirect asks the client to repeat its request.
    package enum RedirectType: Sendable {
        /// 303: fetch the new location with GET; what follows a form POST.
        case seeOther
        /// 307: repeat the same method at the new location.
        case temporary
        /// 308: repeat the same method, and remember the new location.
        case permanent

        package var status: HTTPStatus {
            switch self {
            case .seeOther: .seeOther
            case .temporary: .temporaryRedirect
            case .permanent: .permanentRedirect
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
