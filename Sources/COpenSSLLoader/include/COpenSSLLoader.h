#ifndef MAILSEARCH_COPENSSL_LOADER_H
#define MAILSEARCH_COPENSSL_LOADER_H

// OpenSSL's libraries are loaded when a process first needs TLS, not when it starts: loading
// libssl and libcrypto (mapping them, relocating them, their constructors) cost every process
// about a millisecond, and most commands (an offline search, help, explain, history) never make
// a TLS connection. COpenSSL still gives the headers, types and constants; the functions are
// called through the table below, filled from dlopen/dlsym by mailsearch_openssl_load(). The
// library is never linked, so a call that bypasses the table does not link.

#include <stddef.h>
#include <stdint.h>

// The table's entries and the two functions below are marked non-null; nothing else is.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/rand.h>

/// Every OpenSSL function MailSearch calls (Transport, and the helpers below). A new one is
/// added here, and the linker's "undefined reference" says when one was missed.
#define MAILSEARCH_OPENSSL_CALLS(X) \
    X(ASN1_INTEGER_set) \
    X(BIO_ctrl) \
    X(BIO_f_buffer) \
    X(BIO_free) \
    X(BIO_int_ctrl) \
    X(BIO_new) \
    X(BIO_new_mem_buf) \
    X(BIO_new_socket) \
    X(BIO_push) \
    X(BIO_s_mem) \
    X(BIO_up_ref) \
    X(ERR_clear_error) \
    X(ERR_error_string_n) \
    X(ERR_get_error) \
    X(ERR_peek_error) \
    X(EVP_PKEY_Q_keygen) \
    X(EVP_PKEY_free) \
    X(EVP_sha256) \
    X(OPENSSL_init_ssl) \
    X(OpenSSL_version) \
    X(PEM_read_bio_PrivateKey) \
    X(PEM_read_bio_X509) \
    X(PEM_write_bio_PrivateKey) \
    X(PEM_write_bio_X509) \
    X(RAND_bytes) \
    X(SSL_CTX_check_private_key) \
    X(SSL_CTX_ctrl) \
    X(SSL_CTX_free) \
    X(SSL_CTX_get_cert_store) \
    X(SSL_CTX_new) \
    X(SSL_CTX_set_cert_verify_callback) \
    X(SSL_CTX_set_options) \
    X(SSL_CTX_set_verify) \
    X(SSL_CTX_use_PrivateKey) \
    X(SSL_CTX_use_certificate) \
    X(SSL_ctrl) \
    X(SSL_do_handshake) \
    X(SSL_free) \
    X(SSL_get0_param) \
    X(SSL_get_error) \
    X(SSL_get_verify_result) \
    X(SSL_new) \
    X(SSL_read) \
    X(SSL_set1_host) \
    X(SSL_set_accept_state) \
    X(SSL_set_bio) \
    X(SSL_set_connect_state) \
    X(SSL_set_hostflags) \
    X(SSL_shutdown) \
    X(SSL_write) \
    X(TLS_client_method) \
    X(TLS_server_method) \
    X(X509V3_EXT_conf_nid) \
    X(X509V3_set_ctx) \
    X(X509_EXTENSION_free) \
    X(X509_NAME_add_entry_by_txt) \
    X(X509_STORE_CTX_free) \
    X(X509_STORE_CTX_get0_cert) \
    X(X509_STORE_CTX_get0_param) \
    X(X509_STORE_CTX_get0_untrusted) \
    X(X509_STORE_CTX_get1_chain) \
    X(X509_STORE_CTX_get_current_cert) \
    X(X509_STORE_CTX_get_error) \
    X(X509_STORE_CTX_get_error_depth) \
    X(X509_STORE_CTX_init) \
    X(X509_STORE_CTX_new) \
    X(X509_STORE_CTX_set0_verified_chain) \
    X(X509_STORE_CTX_set_current_cert) \
    X(X509_STORE_CTX_set_error) \
    X(X509_STORE_CTX_set_error_depth) \
    X(X509_STORE_add_cert) \
    X(X509_STORE_free) \
    X(X509_STORE_load_path) \
    X(X509_STORE_new) \
    X(X509_STORE_set_default_paths) \
    X(X509_VERIFY_PARAM_set1) \
    X(X509_VERIFY_PARAM_set1_ip_asc) \
    X(X509_add_ext) \
    X(X509_free) \
    X(X509_get_default_cert_dir) \
    X(X509_get_default_cert_dir_env) \
    X(X509_get_default_cert_file_env) \
    X(X509_get_serialNumber) \
    X(X509_get_subject_name) \
    X(X509_getm_notAfter) \
    X(X509_getm_notBefore) \
    X(X509_gmtime_adj) \
    X(X509_new) \
    X(X509_set_issuer_name) \
    X(X509_set_pubkey) \
    X(X509_set_version) \
    X(X509_sign) \
    X(X509_up_ref) \
    X(X509_verify_cert) \
    X(X509_verify_cert_error_string)

/// The functions, with OpenSSL's own types (from its headers, so they cannot drift).
struct mailsearch_openssl_calls {
#define MAILSEARCH_OPENSSL_FIELD(name) __typeof__(name) *_Nonnull name;
    MAILSEARCH_OPENSSL_CALLS(MAILSEARCH_OPENSSL_FIELD)
#undef MAILSEARCH_OPENSSL_FIELD
};

/// The table, filled by mailsearch_openssl_load(); read only after it returned 1.
extern struct mailsearch_openssl_calls mailsearch_openssl_calls_storage;

/// Loads libssl and libcrypto (the major version of the OpenSSL headers built against: 3) and
/// fills the table. Returns 1, or 0 with what failed in `error` (dlerror's text, or the missing
/// function's name). Called once per process (Transport's OpenSSLLibrary guards it).
int mailsearch_openssl_load(char *_Nonnull error, size_t size);

/// The table, for Swift.
static inline const struct mailsearch_openssl_calls *_Nonnull mailsearch_openssl(void) {
    return &mailsearch_openssl_calls_storage;
}

// Below, OpenSSL's names call through the table: the helpers (and the macros they use, which
// expand to SSL_ctrl, BIO_ctrl and the like) stay as OpenSSL writes them. (Not in the loader
// itself, which names the table's fields.)
#ifndef MAILSEARCH_OPENSSL_LOADER_IMPLEMENTATION
#define ASN1_INTEGER_set mailsearch_openssl_calls_storage.ASN1_INTEGER_set
#define BIO_ctrl mailsearch_openssl_calls_storage.BIO_ctrl
#define BIO_f_buffer mailsearch_openssl_calls_storage.BIO_f_buffer
#define BIO_free mailsearch_openssl_calls_storage.BIO_free
#define BIO_int_ctrl mailsearch_openssl_calls_storage.BIO_int_ctrl
#define BIO_new mailsearch_openssl_calls_storage.BIO_new
#define BIO_new_mem_buf mailsearch_openssl_calls_storage.BIO_new_mem_buf
#define BIO_new_socket mailsearch_openssl_calls_storage.BIO_new_socket
#define BIO_push mailsearch_openssl_calls_storage.BIO_push
#define BIO_s_mem mailsearch_openssl_calls_storage.BIO_s_mem
#define BIO_up_ref mailsearch_openssl_calls_storage.BIO_up_ref
#define ERR_clear_error mailsearch_openssl_calls_storage.ERR_clear_error
#define ERR_error_string_n mailsearch_openssl_calls_storage.ERR_error_string_n
#define ERR_get_error mailsearch_openssl_calls_storage.ERR_get_error
#define ERR_peek_error mailsearch_openssl_calls_storage.ERR_peek_error
#define EVP_PKEY_Q_keygen mailsearch_openssl_calls_storage.EVP_PKEY_Q_keygen
#define EVP_PKEY_free mailsearch_openssl_calls_storage.EVP_PKEY_free
#define EVP_sha256 mailsearch_openssl_calls_storage.EVP_sha256
#define OPENSSL_init_ssl mailsearch_openssl_calls_storage.OPENSSL_init_ssl
#define OpenSSL_version mailsearch_openssl_calls_storage.OpenSSL_version
#define PEM_read_bio_PrivateKey mailsearch_openssl_calls_storage.PEM_read_bio_PrivateKey
#define PEM_read_bio_X509 mailsearch_openssl_calls_storage.PEM_read_bio_X509
#define PEM_write_bio_PrivateKey mailsearch_openssl_calls_storage.PEM_write_bio_PrivateKey
#define PEM_write_bio_X509 mailsearch_openssl_calls_storage.PEM_write_bio_X509
#define RAND_bytes mailsearch_openssl_calls_storage.RAND_bytes
#define SSL_CTX_check_private_key mailsearch_openssl_calls_storage.SSL_CTX_check_private_key
#define SSL_CTX_ctrl mailsearch_openssl_calls_storage.SSL_CTX_ctrl
#define SSL_CTX_free mailsearch_openssl_calls_storage.SSL_CTX_free
#define SSL_CTX_get_cert_store mailsearch_openssl_calls_storage.SSL_CTX_get_cert_store
#define SSL_CTX_new mailsearch_openssl_calls_storage.SSL_CTX_new
#define SSL_CTX_set_cert_verify_callback mailsearch_openssl_calls_storage.SSL_CTX_set_cert_verify_callback
#define SSL_CTX_set_options mailsearch_openssl_calls_storage.SSL_CTX_set_options
#define SSL_CTX_set_verify mailsearch_openssl_calls_storage.SSL_CTX_set_verify
#define SSL_CTX_use_PrivateKey mailsearch_openssl_calls_storage.SSL_CTX_use_PrivateKey
#define SSL_CTX_use_certificate mailsearch_openssl_calls_storage.SSL_CTX_use_certificate
#define SSL_ctrl mailsearch_openssl_calls_storage.SSL_ctrl
#define SSL_do_handshake mailsearch_openssl_calls_storage.SSL_do_handshake
#define SSL_free mailsearch_openssl_calls_storage.SSL_free
#define SSL_get0_param mailsearch_openssl_calls_storage.SSL_get0_param
#define SSL_get_error mailsearch_openssl_calls_storage.SSL_get_error
#define SSL_get_verify_result mailsearch_openssl_calls_storage.SSL_get_verify_result
#define SSL_new mailsearch_openssl_calls_storage.SSL_new
#define SSL_read mailsearch_openssl_calls_storage.SSL_read
#define SSL_set1_host mailsearch_openssl_calls_storage.SSL_set1_host
#define SSL_set_accept_state mailsearch_openssl_calls_storage.SSL_set_accept_state
#define SSL_set_bio mailsearch_openssl_calls_storage.SSL_set_bio
#define SSL_set_connect_state mailsearch_openssl_calls_storage.SSL_set_connect_state
#define SSL_set_hostflags mailsearch_openssl_calls_storage.SSL_set_hostflags
#define SSL_shutdown mailsearch_openssl_calls_storage.SSL_shutdown
#define SSL_write mailsearch_openssl_calls_storage.SSL_write
#define TLS_client_method mailsearch_openssl_calls_storage.TLS_client_method
#define TLS_server_method mailsearch_openssl_calls_storage.TLS_server_method
#define X509V3_EXT_conf_nid mailsearch_openssl_calls_storage.X509V3_EXT_conf_nid
#define X509V3_set_ctx mailsearch_openssl_calls_storage.X509V3_set_ctx
#define X509_EXTENSION_free mailsearch_openssl_calls_storage.X509_EXTENSION_free
#define X509_NAME_add_entry_by_txt mailsearch_openssl_calls_storage.X509_NAME_add_entry_by_txt
#define X509_STORE_CTX_free mailsearch_openssl_calls_storage.X509_STORE_CTX_free
#define X509_STORE_CTX_get0_cert mailsearch_openssl_calls_storage.X509_STORE_CTX_get0_cert
#define X509_STORE_CTX_get0_param mailsearch_openssl_calls_storage.X509_STORE_CTX_get0_param
#define X509_STORE_CTX_get0_untrusted mailsearch_openssl_calls_storage.X509_STORE_CTX_get0_untrusted
#define X509_STORE_CTX_get1_chain mailsearch_openssl_calls_storage.X509_STORE_CTX_get1_chain
#define X509_STORE_CTX_get_current_cert mailsearch_openssl_calls_storage.X509_STORE_CTX_get_current_cert
#define X509_STORE_CTX_get_error mailsearch_openssl_calls_storage.X509_STORE_CTX_get_error
#define X509_STORE_CTX_get_error_depth mailsearch_openssl_calls_storage.X509_STORE_CTX_get_error_depth
#define X509_STORE_CTX_init mailsearch_openssl_calls_storage.X509_STORE_CTX_init
#define X509_STORE_CTX_new mailsearch_openssl_calls_storage.X509_STORE_CTX_new
#define X509_STORE_CTX_set0_verified_chain mailsearch_openssl_calls_storage.X509_STORE_CTX_set0_verified_chain
#define X509_STORE_CTX_set_current_cert mailsearch_openssl_calls_storage.X509_STORE_CTX_set_current_cert
#define X509_STORE_CTX_set_error mailsearch_openssl_calls_storage.X509_STORE_CTX_set_error
#define X509_STORE_CTX_set_error_depth mailsearch_openssl_calls_storage.X509_STORE_CTX_set_error_depth
#define X509_STORE_add_cert mailsearch_openssl_calls_storage.X509_STORE_add_cert
#define X509_STORE_free mailsearch_openssl_calls_storage.X509_STORE_free
#define X509_STORE_load_path mailsearch_openssl_calls_storage.X509_STORE_load_path
#define X509_STORE_new mailsearch_openssl_calls_storage.X509_STORE_new
#define X509_STORE_set_default_paths mailsearch_openssl_calls_storage.X509_STORE_set_default_paths
#define X509_VERIFY_PARAM_set1 mailsearch_openssl_calls_storage.X509_VERIFY_PARAM_set1
#define X509_VERIFY_PARAM_set1_ip_asc mailsearch_openssl_calls_storage.X509_VERIFY_PARAM_set1_ip_asc
#define X509_add_ext mailsearch_openssl_calls_storage.X509_add_ext
#define X509_free mailsearch_openssl_calls_storage.X509_free
#define X509_get_default_cert_dir mailsearch_openssl_calls_storage.X509_get_default_cert_dir
#define X509_get_default_cert_dir_env mailsearch_openssl_calls_storage.X509_get_default_cert_dir_env
#define X509_get_default_cert_file_env mailsearch_openssl_calls_storage.X509_get_default_cert_file_env
#define X509_get_serialNumber mailsearch_openssl_calls_storage.X509_get_serialNumber
#define X509_get_subject_name mailsearch_openssl_calls_storage.X509_get_subject_name
#define X509_getm_notAfter mailsearch_openssl_calls_storage.X509_getm_notAfter
#define X509_getm_notBefore mailsearch_openssl_calls_storage.X509_getm_notBefore
#define X509_gmtime_adj mailsearch_openssl_calls_storage.X509_gmtime_adj
#define X509_new mailsearch_openssl_calls_storage.X509_new
#define X509_set_issuer_name mailsearch_openssl_calls_storage.X509_set_issuer_name
#define X509_set_pubkey mailsearch_openssl_calls_storage.X509_set_pubkey
#define X509_set_version mailsearch_openssl_calls_storage.X509_set_version
#define X509_sign mailsearch_openssl_calls_storage.X509_sign
#define X509_up_ref mailsearch_openssl_calls_storage.X509_up_ref
#define X509_verify_cert mailsearch_openssl_calls_storage.X509_verify_cert
#define X509_verify_cert_error_string mailsearch_openssl_calls_storage.X509_verify_cert_error_string

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

#endif  // MAILSEARCH_OPENSSL_LOADER_IMPLEMENTATION

#pragma clang diagnostic pop

#endif
