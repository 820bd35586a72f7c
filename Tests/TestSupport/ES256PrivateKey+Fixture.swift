import CryptoCore

extension ES256PrivateKey {
    /// A fixed P-256 test key in PKCS#8 PEM, the format of Apple's `.p8` files.
    package static let fixturePEM = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgUfDl2Kd5VG3mor1I
Pr48p1Kdg3kTm0qe84rEusCyh3ShRANCAATNmSDk4mALJ29+bCITnQ0KGr9qp7a5
8EaM4a3VeC5W80u8yyt5hQKYJbXtMWr26LZzP2U5teUjrylngNr080kI
-----END PRIVATE KEY-----
"""

    /// A P-384 key: the wrong curve for ES256.
    package static let p384FixturePEM = """
-----BEGIN PRIVATE KEY-----
MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAtuw57vEtlZtJJhPTU
sB2XrMFhKwQ/Mxmq9Rfe16WOtB8ovhBUas/5D2IIMFp2TDyhZANiAASTQveFtgw8
gL78b8Uu2i36nrab7NkIceEopGmE037zAUPYgC0UPcTgaqFDXGJal/r+fEXQKGpm
3qirzEyJfPaxQD6A6VQsOtyV/vwB4xbfudPyZ1OWnFhVeKXzjWVZHCc=
-----END PRIVATE KEY-----
"""
}
