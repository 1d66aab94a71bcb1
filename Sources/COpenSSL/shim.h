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

// Headers, types and constants only: the functions are called through COpenSSLLoader's table
// (the libraries are loaded at run time, when a process first needs TLS), with the helpers for
// OpenSSL's macros.

#endif
