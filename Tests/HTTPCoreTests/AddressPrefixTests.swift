import HTTPCore
import Testing

struct AddressPrefixTests {
    @Test(arguments: [
        ("203.0.113.7", AddressPrefix.ipv4(0xCB00_7107)),
        ("203.0.113.7:5678", .ipv4(0xCB00_7107)),
        ("::ffff:203.0.113.7", .ipv4(0xCB00_7107)),
        ("[::ffff:203.0.113.7]:80", .ipv4(0xCB00_7107)),
        ("2001:db8:aa:bb:1:2:3:4", .ipv6(0x2001_0DB8_00AA_00BB)),
        ("[2001:db8:aa:bb::9]:443", .ipv6(0x2001_0DB8_00AA_00BB)),
        ("fe80::1%eth0", .ipv6(0xFE80_0000_0000_0000)),
        ("unknown", .other("unknown")),
        ("_hidden", .other("_hidden")),
    ])
    func parsesWhatRemoteAddressGives(text: String, expected: AddressPrefix) {
        #expect(AddressPrefix(parsing: text) == expected)
    }

    @Test func otherTextIsCut() {
        #expect(AddressPrefix(parsing: String(repeating: "x", count: 500)) == .other(String(repeating: "x", count: 64)))
    }

    @Test(arguments: ["127.0.0.1", "127.255.0.9:80", "::1", "[::1]:9", "::ffff:127.0.0.1"])
    func loopback(text: String) {
        #expect(AddressPrefix(parsing: text).isLoopback)
    }

    @Test(arguments: ["128.0.0.1", "10.0.0.1", "2001:db8::1", "::ffff:10.0.0.1", "localhost", "126.255.255.255"])
    func notLoopback(text: String) {
        #expect(!AddressPrefix(parsing: text).isLoopback)
    }

    @Test func describesWithoutTheHostPart() {
        #expect(AddressPrefix(parsing: "203.0.113.7").description == "203.0.113.7")
        #expect(AddressPrefix(parsing: "2001:db8:aa:bb::1").description == "2001:db8:aa:bb::/64")
    }
}
