#pragma once
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/ecdsa.h>
#include <openssl/rand.h>
#include <openssl/bn.h>

// Macros Swift cannot import, as functions.
static inline long lerix_ssl_ctx_set_min_tls12(SSL_CTX *ctx) { return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); }
static inline long lerix_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long lerix_ssl_set_sni(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
static inline long lerix_bio_set_mem_eof_return(BIO *bio, int value) { return BIO_set_mem_eof_return(bio, value); }
static inline long lerix_ssl_mode_partial_write(void) { return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS; }
static inline int lerix_mbstring_asc(void) { return MBSTRING_ASC; }
static inline unsigned long lerix_xn_flag_oneline(void) { return XN_FLAG_ONELINE; }
