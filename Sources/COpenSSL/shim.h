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

static inline const char *mailsearch_OpenSSL_version_text(void) {
    return OpenSSL_version(OPENSSL_VERSION);
}

#endif
