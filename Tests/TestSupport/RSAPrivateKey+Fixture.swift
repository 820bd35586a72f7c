import CryptoCore

extension RSAPrivateKey {
    /// A fixed 2048-bit test key (PKCS#8 PEM), generated for these tests only.
    package static let fixturePEM = """
-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC4FGtdk6fLwggf
OngGFJYj1k7PI8R7DnvirFB9gjDjzdanuixi7c8wEH1P6SFx3s0AaPYfWQjiTTqq
yy8mw/DDH3Z8nbiqrmKZpjovgzpkqhVAh1i/gNmjQ97DTDIacbm5O55d3NhiIXTc
HoIPhhLb8Kus9n79JIKSbXuh1020dlW9/RzrvRs1gA2ajK6x7ci8g9STSoivIxtu
VatndyrSCRhF492fvdGwZn8XaRhMYZR8DrR/NGfTSI46eDFUrwT3GRXkN4qqTInf
3jbtckixuIr80MrAdeyQuWA2cCkM+Gvgn+Fm7CLeSsHm/EDzifnKcFMJSwFkeXuU
SSmbac2nAgMBAAECggEAAjZAmgXBsOmadmGZ+py5tyGGneeUn1PruiwO5YswcjRR
fX93tBKeeDnif5jSDY+7T+Ny/apwuGNsLow1e1ZEaNvSbSnqA6cHyUfdkB+YDoia
q8VUlCyEsPkKTrd2LKosLKUiQId8VCWJxXFaZ7xZMqpgLbpiiUEsjnzhTO8M4Hu8
RqH26FnVAp7ol48iCPKTxbzafxKscq/cjH+PJ/Atd95h0vZcqMPEPC5y076F5gWR
QgQoGRLo3Vzn/W3wHDBr6UVQKbIwSqnGLwzqctOzrE7f62wCVKSNEFMmLhCnxSwy
bIFbr+c5ZeZERkctvxt6fKOgjaw1HlSHA3RZvnsFJQKBgQD2ipzvqwMEkhUhlOjn
NW7FEMMoqm3e/pc0dzDKJQd+tTanmZS+2xsGul7Y/kkUHtdX7cI+mll3AYX7gYl3
AcrvrWLVaEVNHhNJYgQjCX1DgyluONx27WV4otEfJUtwxqC9lDhtzeu1sclPG9oo
feMKYxsoLiHs4Gna6w5w+FzRUwKBgQC/JFgJZD7EFWJmlmO1QXUwwSq73MddBCdg
Q/1+wuWLQ7e4kPEh+kxSX574cW7NOZQ5HYYf/4JgZUINVKtC0NlSqlmgN5C4edXT
z0B6X8NyFImDEavqSW5/Bbs6qIV8B0mry2sgnhG4Y7cxRoQZV4JVRxzdtv3pl9ft
Yrs5v5Jj3QKBgQC393DpqjtDQtp/x4UPWiDA7iQiiSIZPvKHVNVUUdNI6mHRKFoF
HKwLFjDGTOEtIWJhG2pRmo1drwZSSTPRWMYcmM3iHr9vrxyHKpuZpXASW6IjvExO
dhC8twnC6upjSeQR8rM0xG65kuN7o3XjtyQe0RsnnVz1S/PRRortI3bnPwKBgAN0
BKMmzHt+Z2izDtoXdKaM1tjOBEwJ5yw2Dj5cBwmdD5SmCbUzcG2MjLKwWfAbOjJN
9j5dv10+dxMGlJGAdGyp5zSdzF+I0/QfqmqLkFxfQpy7lP+GlBh3YgqNQNwcxZf0
9NqCAI/0PTsGqxxKGHCx+DOJOs0dkSkYv4krjNmBAoGBAKcI2lTl83dC/pWiY1iP
k64dtmY/B86FPwVURyGfpX1jxuGSigiCu1qGiKXtMGv3T4y9SkBCF0eWJc6oiCN3
gNe9cXOpM3AVgH/+Z7AXE7rMVtPm2D27fekL6QuosxjRb8wwLCoG49p6wublZrES
RIxT2pCt0APeS74nrZ7S7MRK
-----END PRIVATE KEY-----
"""

    /// A 1024-bit key: too small to load.
    package static let smallFixturePEM = """
-----BEGIN PRIVATE KEY-----
MIICeAIBADANBgkqhkiG9w0BAQEFAASCAmIwggJeAgEAAoGBAMx7L+/e9YJvrQCJ
GYO0u/I7LoIFnWjKohTRygawWTfXle3RRvV0Y339kZxAOhQoxev2oCbt+rtG1XPV
nHsMaOcMay/RUAx4sNiS8ezVOXHkE0qJdkOO8mi87qX6IrvP3vgGxUKadzvy2CIC
HWlCV9mOI9Sh0ryOQDKA3rVsNH6dAgMBAAECgYEAmdeYslTBy7fvpjZ/7rpcqRtj
m0lUK5JArX9FCxFEnqHhWEKaq3M8o37SPYeI6r/eYPB1f7SObrYVRAgTqfQlO035
BpLVVj2XBrOQA033T023hGbpxGQF9YBDJNAJDeqkJII9ZXDOXiNza3/qrjVE51sB
jEAPc4qKhHmgSTf0SIECQQD85CnAkh3EyBc2oxjEvSB3nk8LFBQ+CWEclQRg1UMN
dc2tej9DkaJLld2xbYa7Yi0PjoZiWnV49bybQlmPM4l9AkEAzv6uEqHb7yiRdNy4
XDZdiU9DHqc91CP0sKzs7EFZRuYhRB2RyPcaQ6yVOEIIYHiYorw/zP0YZFPo6eaM
La3ToQJBAJYBWOrLQTEqZuqXz+dTL+EEXGp73I33zky/77rohT+Esx3Ft6UCy7v+
B2RpTVP1JjlmFzxb3/aB/QAzWSBiN5kCQFDMnUpsoBtU7KJ/Xf+wwQZOSFb41Wuv
tV4ZwkneoGjKgAXEvRmDS19LSNwy+m4d5QbxEL6FtTXEg1B6TBGwnsECQQDDp03i
a1HkhjhBpA8ysDbJ/v5lH0xZV4JVS77+ynycmPyCcwJhwifCbZhy3OxFElqH57iG
hGnzPv+VWlilQxUV
-----END PRIVATE KEY-----
"""

    package static let fixture: RSAPrivateKey = {
        do { return try RSAPrivateKey(pem: fixturePEM) } catch { fatalError("fixture key: \(error)") }
    }()
}
