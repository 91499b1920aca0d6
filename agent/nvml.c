/*
 * nvml.c — dlopen NVML and look up the functions of nvml.h.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "fairway/err.h"
#include "nvml.h"

static int load_symbols(struct fw_nvml *n, const char *lib, char *why, size_t whylen)
{
	void *p;

#define FW__NVML_SYM(f, sym, args)                                                        \
	if (!(p = dlsym(n->lib, sym))) {                                                   \
		snprintf(why, whylen, "%s has no %s: not NVIDIA's NVML, or a driver too old", lib, sym); \
		return FW_ENOENT;                                                          \
	}                                                                                  \
	memcpy(&n->f, &p, sizeof p);
	FW_NVML_FUNCS(FW__NVML_SYM)
#undef FW__NVML_SYM
	if ((p = dlsym(n->lib, "nvmlErrorString")))
		memcpy(&n->error_string, &p, sizeof p);
	if ((p = dlsym(n->lib, "nvmlDeviceGetRemappedRows")))
		memcpy(&n->remapped_rows, &p, sizeof p);
	return FW_OK;
}

int fw_nvml_open(struct fw_nvml *n, const char *path, char *why, size_t whylen)
{
	const char *lib = path ? path : "libnvidia-ml.so.1";
	nvmlReturn_t rc;

	memset(n, 0, sizeof *n);
	n->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *e = dlerror();
		snprintf(why, whylen, "dlopen: %s", e ? e : "not found"); /* dlerror names lib */
		return FW_ENOENT;
	}
	if (load_symbols(n, lib, why, whylen) != FW_OK) {
		dlclose(n->lib);
		n->lib = NULL;
		return FW_ENOENT;
	}
	if ((rc = n->init()) != NVML_SUCCESS) {
		snprintf(why, whylen, "nvmlInit failed: %s (is the NVIDIA driver loaded?)",
			 fw_nvml_error(n, rc));
		dlclose(n->lib);
		n->lib = NULL;
		return FW_EIO;
	}
	return FW_OK;
}

void fw_nvml_close(struct fw_nvml *n)
{
	if (!n->lib)
		return;
	n->shutdown();
	dlclose(n->lib);
	n->lib = NULL;
}

const char *fw_nvml_error(const struct fw_nvml *n, nvmlReturn_t rc)
{
	const char *s = n->error_string ? n->error_string(rc) : NULL;

	return s ? s : "unknown NVML error";
}
