/*
 * nvml.h — the slice of NVIDIA's NVML that fairway-agent uses, loaded at
 * run time with dlopen (no NVIDIA header or library at build time).
 *
 * Why dlopen: the agent must build and run everywhere, and on a machine
 * without NVIDIA GPUs say so and exit 0.  Linking -lnvidia-ml would make
 * the binary fail to start there.  The declarations below follow the
 * public NVML API (nvml.h of the CUDA toolkit): the handle types are
 * opaque pointers, the return code is an int (NVML_SUCCESS 0), and every
 * function we call is looked up by its versioned symbol name.
 *
 * The test double (tests/fake_nvml/fake_nvml.c) implements exactly these
 * symbols and the optional ones (nvmlErrorString,
 * nvmlDeviceGetRemappedRows), driven by environment variables, so the
 * agent's whole path from dlopen to JSON is exercised without a GPU.
 *
 * Ownership: fw_nvml_open() fills a table and keeps the dlopen handle in
 * it; fw_nvml_close() shuts NVML down and closes the library.
 */
#ifndef FAIRWAY_AGENT_NVML_H
#define FAIRWAY_AGENT_NVML_H

#include <stddef.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_RESET_REQUIRED 16
#define NVML_ERROR_TIMEOUT 10
#define NVML_TEMPERATURE_GPU 0
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0
#define NVML_AGGREGATE_ECC 1
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_FEATURE_ENABLED 1
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL

typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData; /* the XID code */
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlEventData_t;

/* The functions, as a table of pointers (X-macro: name, symbol, args). */
#define FW_NVML_FUNCS(X)                                                                    \
	X(init, "nvmlInit_v2", (void))                                                      \
	X(shutdown, "nvmlShutdown", (void))                                                 \
	X(driver_version, "nvmlSystemGetDriverVersion", (char *, unsigned))                \
	X(count, "nvmlDeviceGetCount_v2", (unsigned *))                                     \
	X(handle, "nvmlDeviceGetHandleByIndex_v2", (unsigned, nvmlDevice_t *))             \
	X(name, "nvmlDeviceGetName", (nvmlDevice_t, char *, unsigned))                     \
	X(uuid, "nvmlDeviceGetUUID", (nvmlDevice_t, char *, unsigned))                     \
	X(temperature, "nvmlDeviceGetTemperature", (nvmlDevice_t, int, unsigned *))        \
	X(ecc, "nvmlDeviceGetTotalEccErrors", (nvmlDevice_t, int, int, unsigned long long *)) \
	X(nvlink_state, "nvmlDeviceGetNvLinkState", (nvmlDevice_t, unsigned, int *))       \
	X(event_create, "nvmlEventSetCreate", (nvmlEventSet_t *))                          \
	X(event_register, "nvmlDeviceRegisterEvents", (nvmlDevice_t, unsigned long long, nvmlEventSet_t)) \
	X(event_wait, "nvmlEventSetWait_v2", (nvmlEventSet_t, nvmlEventData_t *, unsigned)) \
	X(event_free, "nvmlEventSetFree", (nvmlEventSet_t))

struct fw_nvml {
	void *lib;
#define FW__NVML_PTR(f, sym, args) nvmlReturn_t (*f) args;
	FW_NVML_FUNCS(FW__NVML_PTR)
#undef FW__NVML_PTR
	const char *(*error_string)(nvmlReturn_t); /* "nvmlErrorString" */
	/* "nvmlDeviceGetRemappedRows" (drivers since R460; Ampere and newer
	 * GPUs answer, older ones NOT_SUPPORTED): correctable and
	 * uncorrectable rows remapped, a remap pending (applied at the next
	 * GPU reset), a remap that failed (no spare row left).  Optional: NULL
	 * when the library lacks it, and the report then says null. */
	nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned *, unsigned *, unsigned *, unsigned *);
};

/* Load path (NULL = "libnvidia-ml.so.1") and call nvmlInit.  FW_OK;
 * FW_ENOENT when the library is not there or not NVML (dlopen's reason,
 * or the symbol it lacks, in why[], naming the library); FW_EIO when it
 * loaded but nvmlInit failed (driver not loaded, no GPUs: NVML's text).
 * The agent tells them apart: an explicit --nvml PATH that is not NVML is
 * the operator's mistake (exit 2), a machine without a driver is not. */
int fw_nvml_open(struct fw_nvml *n, const char *path, char *why, size_t whylen);
void fw_nvml_close(struct fw_nvml *n);
/* NVML's text for a code (never NULL). */
const char *fw_nvml_error(const struct fw_nvml *n, nvmlReturn_t rc);

#endif
