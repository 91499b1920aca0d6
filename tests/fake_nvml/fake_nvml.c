/*
 * fake_nvml.c — a test double for NVML at the library boundary: exactly
 * the symbols fairway-agent looks up (agent/nvml.h), with behaviour read
 * from the environment at nvmlInit time:
 *
 *   FAKE_NVML_GPUS=N           GPUs (default 2, at most 16)
 *   FAKE_NVML_INIT_FAIL=1      nvmlInit returns NVML_ERROR_DRIVER_NOT_LOADED
 *   FAKE_NVML_XID=G:C[,G:C]    XID code C on GPU G, delivered once each
 *                              through the event set
 *   FAKE_NVML_ECC=G:N          N uncorrectable (volatile) ECC errors on G
 *   FAKE_NVML_NVLINK_DOWN=G:L  link L of GPU G is down (each GPU has 4)
 *   FAKE_NVML_NVLINK_DOWN_FROM=K  ... from the K-th report on (default 1;
 *                              a report reads link 0 of GPU 0 once)
 *   FAKE_NVML_NVLINK_DOWN_UNTIL=K ... up to the K-th report (default: for ever)
 *   FAKE_NVML_FAULTS_UNTIL=K   ECC errors and handle errors last through
 *                              the K-th report (one driver-version read
 *                              each); then the GPU looks reset: it answers,
 *                              and its volatile ECC count is 0 (the
 *                              aggregate one stays)
 *   FAKE_NVML_TEMP=T           every GPU's temperature (default 40)
 *   FAKE_NVML_REMAP=G:K        row remapping of GPU G: K = 1 a remap
 *                              pending (until FAKE_NVML_FAULTS_UNTIL: a
 *                              reset applies it), 2 a remap failed (for
 *                              ever), 3 both; each counts one
 *                              uncorrectable row
 *   FAKE_NVML_REMAP_NS=1       nvmlDeviceGetRemappedRows is NOT_SUPPORTED
 *                              (a pre-Ampere GPU)
 *   FAKE_NVML_HANDLE_ERR=G:RC  nvmlDeviceGetHandleByIndex_v2 of GPU G
 *                              returns RC (4 no permission: a GPU of
 *                              another container; 15 fallen off the bus)
 *
 * Devices are pointers into a static array; the event set is the array of
 * pending XIDs.  Not thread-safe; one process, one agent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_dev *nvmlDevice_t;
typedef struct fake_set *nvmlEventSet_t;

typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType;
	unsigned long long eventData;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlEventData_t;

#define MAXG 16
#define LINKS 4

struct fake_dev {
	int index;
	unsigned long long ecc;
	int link_down[LINKS];
	int registered;
	int handle_err;
	int remap; /* FAKE_NVML_REMAP's K */
};

struct fake_set {
	int xid_gpu[64];
	long xid_code[64];
	int n, next;
};

static struct fake_dev devs[MAXG];
static struct fake_set the_set;
static int ngpus, inited;
static int link_reads, down_from = 1, down_until; /* reads of GPU 0's link 0 = reports */
static int reports, faults_until;                 /* driver-version reads = reports */

static int faulty(void)
{
	return !faults_until || reports <= faults_until;
}
static unsigned temp = 40;

/* "G:V,G:V" -> calls f(g, v) */
static void pairs(const char *env, void (*f)(int, long))
{
	const char *s = getenv(env);

	while (s && *s) {
		char *end;
		long g = strtol(s, &end, 10), v;
		if (*end != ':')
			return;
		v = strtol(end + 1, &end, 10);
		if (g >= 0 && g < ngpus)
			f((int)g, v);
		s = *end == ',' ? end + 1 : "";
	}
}

static void set_xid(int g, long code)
{
	if (the_set.n < 64) {
		the_set.xid_gpu[the_set.n] = g;
		the_set.xid_code[the_set.n++] = code;
	}
}

static void set_ecc(int g, long n)
{
	devs[g].ecc = (unsigned long long)n;
}

static void set_remap(int g, long k)
{
	devs[g].remap = (int)k;
}

static void set_handle_err(int g, long rc)
{
	devs[g].handle_err = (int)rc;
}

static void set_link(int g, long l)
{
	if (l >= 0 && l < LINKS)
		devs[g].link_down[l] = 1;
}

nvmlReturn_t nvmlInit_v2(void)
{
	const char *n = getenv("FAKE_NVML_GPUS"), *t = getenv("FAKE_NVML_TEMP");

	if (getenv("FAKE_NVML_INIT_FAIL"))
		return 9; /* NVML_ERROR_DRIVER_NOT_LOADED */
	memset(devs, 0, sizeof devs);
	memset(&the_set, 0, sizeof the_set);
	ngpus = n ? atoi(n) : 2;
	ngpus = ngpus < 0 ? 0 : ngpus > MAXG ? MAXG : ngpus;
	temp = t ? (unsigned)atoi(t) : 40;
	for (int i = 0; i < ngpus; i++)
		devs[i].index = i;
	pairs("FAKE_NVML_XID", set_xid);
	pairs("FAKE_NVML_ECC", set_ecc);
	pairs("FAKE_NVML_NVLINK_DOWN", set_link);
	pairs("FAKE_NVML_HANDLE_ERR", set_handle_err);
	pairs("FAKE_NVML_REMAP", set_remap);
	link_reads = 0;
	down_from = getenv("FAKE_NVML_NVLINK_DOWN_FROM") ? atoi(getenv("FAKE_NVML_NVLINK_DOWN_FROM")) : 1;
	down_until = getenv("FAKE_NVML_NVLINK_DOWN_UNTIL") ? atoi(getenv("FAKE_NVML_NVLINK_DOWN_UNTIL")) : 0;
	reports = 0;
	faults_until = getenv("FAKE_NVML_FAULTS_UNTIL") ? atoi(getenv("FAKE_NVML_FAULTS_UNTIL")) : 0;
	inited = 1;
	return 0;
}

nvmlReturn_t nvmlShutdown(void)
{
	inited = 0;
	return 0;
}

const char *nvmlErrorString(nvmlReturn_t rc)
{
	switch (rc) {
	case 0: return "Success";
	case 2: return "Invalid Argument";
	case 9: return "Driver Not Loaded";
	case 4: return "Insufficient Permissions";
	case 10: return "Timeout";
	case 15: return "GPU is lost";
	default: return "Unknown Error";
	}
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
	reports++;
	snprintf(buf, len, "fake-1.0");
	return 0;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
	if (!inited)
		return 1;
	*n = (unsigned)ngpus;
	return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if (!inited || i >= (unsigned)ngpus)
		return 2;
	if (devs[i].handle_err && faulty())
		return devs[i].handle_err;
	*d = &devs[i];
	return 0;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned len)
{
	(void)d;
	snprintf(buf, len, "Fake H100 80GB HBM3");
	return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned len)
{
	snprintf(buf, len, "GPU-fake-0000-%04d", d->index);
	return 0;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *t)
{
	(void)d;
	if (sensor != 0)
		return 2;
	*t = temp;
	return 0;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long *n)
{
	if (type != 1 || (counter != 0 && counter != 1))
		return 2;
	*n = counter == 0 && !faulty() ? 0 : d->ecc;
	return 0;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned link, int *state)
{
	if (link >= LINKS)
		return 2; /* no such link */
	if (d->index == 0 && link == 0)
		link_reads++;
	*state = !(d->link_down[link] && link_reads >= down_from && (!down_until || link_reads <= down_until));
	return 0;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corr, unsigned *unc, unsigned *pending,
				       unsigned *failed)
{
	if (getenv("FAKE_NVML_REMAP_NS"))
		return 3; /* NVML_ERROR_NOT_SUPPORTED */
	*pending = (d->remap & 1) && faulty();
	*failed = (d->remap & 2) != 0;
	*corr = 0;
	*unc = (unsigned)((d->remap & 1) + ((d->remap & 2) >> 1));
	return 0;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *s)
{
	*s = &the_set;
	return 0;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t s)
{
	(void)s;
	if (!(types & 0x8ULL))
		return 3;
	d->registered = 1;
	return 0;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t s, nvmlEventData_t *e, unsigned timeout_ms)
{
	(void)timeout_ms; /* never sleeps: the test must not be slow */
	while (s->next < s->n && !devs[s->xid_gpu[s->next]].registered)
		s->next++;
	if (s->next >= s->n)
		return 10; /* NVML_ERROR_TIMEOUT */
	memset(e, 0, sizeof *e);
	e->device = &devs[s->xid_gpu[s->next]];
	e->eventType = 0x8ULL;
	e->eventData = (unsigned long long)s->xid_code[s->next++];
	return 0;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t s)
{
	(void)s;
	return 0;
}
