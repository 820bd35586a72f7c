import Testing
@testable import Storage

struct PostgresURLTests {
    @Test(arguments: ["postgres://u:p@db.example.com:6543/siwa?sslmode=verify-full&sslrootcert=/etc/ca.pem",
                      "postgresql://u@localhost/siwa", "postgresql:///siwa?host=/run/postgresql"])
    func libpqURIsAreAccepted(_ text: String) throws {
        let url = try PostgresURL(text)
        #expect(url.uri == text)
        #expect(!url.description.contains(":p@"))
    }

    @Test func hostPortAndDatabaseAreRead() throws {
        let url = try PostgresURL("postgres://u:secret@db.example.com:6543/siwa")
        #expect(url.host == "db.example.com" && url.port == "6543" && url.database == "siwa")
        #expect(url.description == "db.example.com:6543/siwa")
        #expect(try PostgresURL("postgresql:///siwa?host=/run/postgresql").host == "/run/postgresql")
    }

    @Test(arguments: ["mysql://u@h/d", "sqlite:siwa.sqlite", "postgres:/nohost", "siwa.sqlite", "",
                      "postgres://u:secret@h/d?sslmode=sometimes&nonsense=1"])
    func otherURIsAreRefusedWithoutThePassword(_ text: String) {
        let error = #expect(throws: PostgresURL.Invalid.self) { try PostgresURL(text) }
        #expect(error?.description.contains("secret") == false)
    }

    /// libpq's message quotes what it could not parse, the whole URI at times; found by an audit against the rule
    /// that the password is never in an error.
    @Test(arguments: [
        ("postgres://u:SE%zzCRET@127.0.0.1:1/db", "SE%zzCRET"), ("postgres://u:SECRETPW@[::1/db", "SECRETPW"),
        ("postgres://u:p4ss@h/db?sslmode=verify-full&password=SE%zzQ", "SE%zzQ"),
        ("postgres://u:p4ss@h/db?password=SE%zzQ", "p4ss"), ("postgres://u:SECRET@h:5432/d?foo", "SECRET"),
    ])
    func libpqsRefusalNamesNoPassword(_ text: String, _ password: String) {
        let error = #expect(throws: PostgresURL.Invalid.self) { try PostgresURL(text) }
        #expect(error?.description.contains("is not a connection URI libpq accepts") == true)
        #expect(error?.description.contains(password) == false, "\(error?.description ?? "")")
    }

    @Test func theSchemeIsCaseInsensitive() throws {
        let url = try PostgresURL("POSTGRES://u:p@db.example.com:6543/siwa")
        #expect(url.uri == "postgres://u:p@db.example.com:6543/siwa")
        #expect(url.description == "db.example.com:6543/siwa")
    }

    @Test func secretsAreThePasswordsAsWrittenAndEveryQuotedPieceOfOneIsHidden() {
        #expect(PostgresURL.secrets(in: "postgres://u:a:b@h/d?x=1&password=q&password=") == ["a:b", "q"])
        #expect(PostgresURL.secrets(in: "postgres://u@h/d") == [])
        #expect(PostgresURL.secrets(in: "postgres://u:p@ss@h/d") == ["p@ss"])
        #expect(PostgresURL.redacting(["SECRET"], in: #"bad "postgres://u:SECRET@h" here"#)
                == #"bad "postgres://u:…@h" here"#)
        #expect(PostgresURL.redacting(["SECRET"], in: #"token: "CRE" and "=""#) == #"token: "…" and "=""#)
        #expect(PostgresURL.redacting(["…"], in: "a…b") == "a…b")
        #expect(PostgresURL.redacting([], in: #"x "y""#) == #"x "y""#)
    }
}
