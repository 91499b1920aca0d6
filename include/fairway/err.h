/*
 * err.h — fairway's one error vocabulary.
 *
 * Every fallible function in libfairway returns an int: FW_OK (0) or a
 * negative value from the list below.  The list is an X-macro so that the
 * enum, the name table and the human text come from one place (libuv's
 * UV_ERRNO_MAP is the model).
 *
 * Human-readable detail about *bad input* travels in a struct fw_diag, which
 * only parsers fill in: it names the file, the line, the column and the field,
 * and says what to do.  The core never prints; it only fills a fw_diag when a
 * caller passes one.
 *
 * Ownership: a fw_diag is a plain value owned by the caller.  Functions that
 * take one write to it only when they fail; on success it is left untouched.
 */
#ifndef FAIRWAY_ERR_H
#define FAIRWAY_ERR_H

#include <stddef.h>

#define FW_ERR_MAP(X)                                                   \
	X(OK, 0, "success")                                             \
	X(ENOMEM, -1, "out of memory")                                  \
	X(EINVAL, -2, "invalid input")                                  \
	X(ENOENT, -3, "no such object")                                 \
	X(EEXIST, -4, "object already exists")                          \
	X(ERANGE, -5, "value out of range")                             \
	X(ELOOP, -6, "cycle in a hierarchy")                            \
	X(EBUSY, -7, "object is busy")                                  \
	X(EAGAIN, -8, "try again")                                      \
	X(EDECLINED, -9, "declined: not this handler's case")           \
	X(EIO, -10, "input/output error")                               \
	X(EINVARIANT, -11, "invariant violated")

enum fw_err {
#define FW__ERR_ENUM(name, val, text) FW_##name = (val),
	FW_ERR_MAP(FW__ERR_ENUM)
#undef FW__ERR_ENUM
};

/* "ENOMEM" etc.; "EUNKNOWN" for a value not in the list. */
const char *fw_err_name(int err);
/* One short sentence in lower case; never NULL. */
const char *fw_strerror(int err);

/*
 * Where bad input was found, and why.  line and col are 1-based; 0 means
 * "not known" (e.g. an error about the whole file).  field is the dotted path
 * of the offending key, e.g. "queues[3].resources.gpu.quota".
 */
struct fw_diag {
	char file[256];
	int line;
	int col;
	char field[128];
	char msg[384];
};

/* Fill *d (if d is not NULL).  Returns err so callers can `return fw_diag_set(...)`. */
int fw_diag_set(struct fw_diag *d, int err, const char *file, int line,
		int col, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* "FILE:LINE:COL: field FIELD: MSG" into buf (always NUL-terminated). */
void fw_diag_format(const struct fw_diag *d, char *buf, size_t n);

#endif
