import COpenSSL

/// One P-256 key and X.509 v3 certificate, self-signed or signed by `issuer`.
final class ClientTestCertificate: @unchecked Sendable {  // immutable after init
    let key: OpaquePointer  // EVP_PKEY *
    let certificate: OpaquePointer  // X509 *

    init(commonName: String, subjectAltName: String?, isCA: Bool, validFrom: Int, validFor: Int,
         issuer: ClientTestCertificate?) throws {
        var generated: OpaquePointer?
        guard let keyContext = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw ScriptedServerError("EC ctx") }
        defer { EVP_PKEY_CTX_free(keyContext) }
        guard EVP_PKEY_keygen_init(keyContext) == 1, EVP_PKEY_CTX_set_group_name(keyContext, "P-256") == 1,
              EVP_PKEY_generate(keyContext, &generated) == 1, let generated else {
            throw ScriptedServerError("EC keygen")
        }
        key = generated
        guard let x509 = X509_new() else { throw ScriptedServerError("X509_new") }
        certificate = x509
        let name = X509_get_subject_name(x509)
        X509_set_version(x509, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(x509), Int.random(in: 1..<Int(Int32.max)))
        X509_gmtime_adj(X509_getm_notBefore(x509), validFrom)
        X509_gmtime_adj(X509_getm_notAfter(x509), validFrom + validFor)
        X509_set_pubkey(x509, key)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0)
        X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.certificate) } ?? name)
        var extensionContext = X509V3_CTX()
        X509V3_set_ctx(&extensionContext, issuer?.certificate ?? x509, x509, nil, nil, 0)
        var extensions = [(NID_basic_constraints, isCA ? "critical,CA:TRUE" : "CA:FALSE"),
                          (NID_key_usage, isCA ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature")]
        if let subjectAltName { extensions.append((NID_subject_alt_name, subjectAltName)) }
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &extensionContext, nid, value) else {
                throw ScriptedServerError("extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            X509_add_ext(x509, ext, -1)
        }
        guard X509_sign(x509, issuer?.key ?? key, EVP_sha256()) > 0 else { throw ScriptedServerError("X509_sign") }
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    func writeCertificate(to path: String) throws -> String {
        try write(to: path) { PEM_write_bio_X509($0, certificate) }
    }

    func writeKey(to path: String) throws -> String {
        try write(to: path) { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    private func write(to path: String, _ body: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new_file(path, "w") else { throw ScriptedServerError("cannot write \(path)") }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { throw ScriptedServerError("PEM write \(path)") }
        return path
    }
}
