/*
 * sha256.h — SHA-256 (FIPS 180-4) of a byte string, as lowercase hex.
 *
 * `fairway sim run --config` echoes its config file's digest in the JSON
 * (config_sha256), so that a result names the exact file it replayed,
 * comparable with `sha256sum FILE`.  One call, the whole buffer at once;
 * no state, no allocation.
 */
#ifndef FAIRWAY_SIM_SHA256_H
#define FAIRWAY_SIM_SHA256_H

#include <stddef.h>

#define FW_SHA256_HEX 65 /* 64 hex digits and the NUL */

/* The digest of buf[0..len) into hex (FW_SHA256_HEX bytes). */
void fw_sha256_hex(const void *buf, size_t len, char hex[FW_SHA256_HEX]);

#endif
