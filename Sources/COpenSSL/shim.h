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

/* Gives `ssl` the socket `fd`, written directly and read through a buffer of `bufferSize` bytes:
 * one read() takes what the socket holds, several records at a time, and OpenSSL takes each
 * record's header and body from the buffer. (OpenSSL's own read-ahead does the same with one
 * system call, but moves the rest of its buffer to the front before each record: for a buffer of
 * several records that copies every byte about twice more.) Returns 1, or 0 when out of memory. */
static inline int mailsearch_SSL_set_fd_read_through_buffer(SSL *ssl, int fd, int bufferSize) {
    BIO *socket = BIO_new_socket(fd, BIO_NOCLOSE);
    BIO *buffer = BIO_new(BIO_f_buffer());
    if (socket == NULL || buffer == NULL || BIO_set_read_buffer_size(buffer, bufferSize) <= 0
        || BIO_up_ref(socket) != 1) {
        BIO_free(buffer);
        BIO_free(socket);
        return 0;
    }
    /* Two references to the socket BIO: the buffer's chain and the write side; SSL_free frees both. */
    BIO_push(buffer, socket);
    SSL_set_bio(ssl, buffer, socket);
    return 1;
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
