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
}
