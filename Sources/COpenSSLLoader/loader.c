#define MAILSEARCH_OPENSSL_LOADER_IMPLEMENTATION
#include "COpenSSLLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct mailsearch_openssl_calls mailsearch_openssl_calls_storage;

// The sonames of the OpenSSL the headers describe: libssl.so.3 and libcrypto.so.3 for 3.x.
#define MAILSEARCH_STRING(x) #x
#define MAILSEARCH_SONAME(library, major) "lib" library ".so." MAILSEARCH_STRING(major)

int mailsearch_openssl_load(char *error, size_t size) {
    // libcrypto first: libssl needs it, and dlsym on libssl's handle finds both.
    void *crypto = dlopen(MAILSEARCH_SONAME("crypto", OPENSSL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void *ssl = crypto ? dlopen(MAILSEARCH_SONAME("ssl", OPENSSL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL) : NULL;
    if (ssl == NULL) {
        const char *reason = dlerror();
        snprintf(error, size, "%s", reason ? reason : "dlopen failed");
        return 0;
    }
    struct mailsearch_openssl_calls calls;
    void *found;
#define MAILSEARCH_OPENSSL_RESOLVE(name)                                         \
    found = dlsym(ssl, #name);                                                  \
    if (found == NULL) {                                                        \
        snprintf(error, size, "%s has no %s", MAILSEARCH_SONAME("ssl", OPENSSL_VERSION_MAJOR), #name); \
        return 0;                                                               \
    }                                                                           \
    memcpy(&calls.name, &found, sizeof found);
    MAILSEARCH_OPENSSL_CALLS(MAILSEARCH_OPENSSL_RESOLVE)
#undef MAILSEARCH_OPENSSL_RESOLVE
    // The libraries stay loaded for the life of the process (never dlclose'd).
    mailsearch_openssl_calls_storage = calls;
    return 1;
}
