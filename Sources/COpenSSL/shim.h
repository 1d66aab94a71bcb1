#ifndef MAILSEARCH_COPENSSL_SHIM_H
#define MAILSEARCH_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/rand.h>

// OpenSSL exposes several calls as macros, which Swift cannot import. Each is wrapped here as a
// prefixed static inline function with the macro's meaning.

static inline long mailsearch_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline int mailsearch_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

static inline int mailsearch_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }

static inline long mailsearch_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline long mailsearch_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER(void) {
    return SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
}

static inline long mailsearch_SSL_MODE_ENABLE_PARTIAL_WRITE(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE;
}

static inline int mailsearch_BIO_get_mem_data(BIO *bio, char **data) {
    return (int)BIO_get_mem_data(bio, data);
}

/* Initializes libssl and libcrypto without the atexit() handler that would free OpenSSL's global
 * state while other threads may still be using it. */
static inline int mailsearch_OpenSSL_initialize_without_atexit(void) {
    return OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, NULL);
}

static inline const char *mailsearch_OpenSSL_version_text(void) {
    return OpenSSL_version(OPENSSL_VERSION);
}

static inline long mailsearch_SSL_CTX_add_extra_chain_cert(SSL_CTX *ctx, X509 *certificate) {
    return SSL_CTX_add_extra_chain_cert(ctx, certificate);
}

static inline int mailsearch_ERR_GET_REASON(unsigned long code) { return ERR_GET_REASON(code); }

static inline int mailsearch_ERR_GET_LIB(unsigned long code) { return ERR_GET_LIB(code); }

static inline uint64_t mailsearch_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }

static inline uint64_t mailsearch_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }

/// EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen, which Swift cannot call.
static inline EVP_PKEY *mailsearch_generate_P256_key(void) { return EVP_EC_gen("P-256"); }

#endif
