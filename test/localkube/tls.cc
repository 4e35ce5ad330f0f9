#include "test/localkube/tls.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace kai::localkube {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
template <typename T>
using Ptr = std::unique_ptr<T, Free>;

Status SslError(const std::string& what) { return InternalError("openssl: " + what); }

StatusOr<Ptr<EVP_PKEY>> NewKey() {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  if (key == nullptr) return SslError("key generation failed");
  return Ptr<EVP_PKEY>(key);
}

Status AddExt(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Ptr<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext) return SslError("extension " + value);
  if (X509_add_ext(cert, ext.get(), -1) != 1) return SslError("add extension");
  return Status::OK();
}

StatusOr<Ptr<X509>> MakeCert(EVP_PKEY* key, const std::string& cn, X509* issuer,
                             EVP_PKEY* issuer_key, bool is_ca, const std::string& san, int days) {
  Ptr<X509> cert(X509_new());
  if (!cert) return SslError("X509_new");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof(serial));
  serial[0] &= 0x7F;
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* iss = issuer ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(iss));
  if (is_ca) {
    KAI_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_basic_constraints, "critical,CA:TRUE"));
    KAI_RETURN_IF_ERROR(
        AddExt(cert.get(), iss, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"));
  } else {
    KAI_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_basic_constraints, "critical,CA:FALSE"));
    KAI_RETURN_IF_ERROR(
        AddExt(cert.get(), iss, NID_key_usage, "critical,digitalSignature,keyEncipherment"));
    KAI_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_ext_key_usage, "serverAuth"));
    KAI_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_subject_alt_name, san));
  }
  KAI_RETURN_IF_ERROR(AddExt(cert.get(), iss, NID_subject_key_identifier, "hash"));
  if (X509_sign(cert.get(), issuer_key ? issuer_key : key, EVP_sha256()) == 0) {
    return SslError("sign");
  }
  return cert;
}

StatusOr<std::string> CertPem(X509* cert) {
  Ptr<BIO> bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_X509(bio.get(), cert) != 1) return SslError("write cert");
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

StatusOr<std::string> KeyPem(EVP_PKEY* key) {
  Ptr<BIO> bio(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return SslError("write key");
  }
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

}  // namespace

StatusOr<CertBundle> GenerateCerts(const std::vector<std::string>& hosts, int days) {
  KAI_ASSIGN_OR_RETURN(Ptr<EVP_PKEY> ca_key, NewKey());
  KAI_ASSIGN_OR_RETURN(Ptr<X509> ca,
                       MakeCert(ca_key.get(), "localkube-ca", nullptr, nullptr, true, "", days));
  std::string san;
  for (const std::string& h : hosts) {
    if (!san.empty()) san += ",";
    unsigned char buf[16];
    const bool ip =
        inet_pton(AF_INET, h.c_str(), buf) == 1 || inet_pton(AF_INET6, h.c_str(), buf) == 1;
    san += (ip ? "IP:" : "DNS:") + h;
  }
  KAI_ASSIGN_OR_RETURN(Ptr<EVP_PKEY> key, NewKey());
  KAI_ASSIGN_OR_RETURN(Ptr<X509> cert,
                       MakeCert(key.get(), "localkube", ca.get(), ca_key.get(), false, san, days));
  CertBundle b;
  KAI_ASSIGN_OR_RETURN(b.ca_pem, CertPem(ca.get()));
  KAI_ASSIGN_OR_RETURN(std::string leaf, CertPem(cert.get()));
  b.cert_pem = leaf + b.ca_pem;
  KAI_ASSIGN_OR_RETURN(b.key_pem, KeyPem(key.get()));
  return b;
}

}  // namespace kai::localkube
