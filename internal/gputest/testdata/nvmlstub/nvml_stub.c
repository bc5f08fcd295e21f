/*
 * A stand-in for libnvidia-ml.so.1 for the tests that drive go-nvml's real
 * cgo path (nvml_stub_test.go): the NVML functions the probe uses, with the
 * real names (versioned where go-nvml picks a version) and struct layouts.
 * Two H200 at 0000:18:00.0 and 0000:19:00.0 joined by 18 NVLinks, PCIe
 * gen5 x16 (gen1 when idle: no PCIe throughput sampled in the last second, so
 * that a reader starved of CPU still reads the link under load), BAR1 256 GiB,
 * common ancestor HOSTBRIDGE.
 * nvmlDeviceGetPcieThroughput sleeps 20 ms, like the real counter window,
 * and reports NVMLSTUB_KBPS (default 1000) KB/s.
 *
 * Build: gcc -shared -fPIC -o libnvidia-ml.so.1 nvml_stub.c
 */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef int nvmlReturn_t;
enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_FOUND = 6 };
typedef struct { int index; } *nvmlDevice_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
typedef struct { unsigned long long bar1Total, bar1Free, bar1Used; } nvmlBAR1Memory_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;

static struct { int index; } devs[2] = {{0}, {1}};
static int refcount;
static long bad;      /* calls made while NVML was not initialised */
static long active;   /* calls in progress (PcieThroughput may overlap) */

long nvmlstub_bad_calls(void) { return bad; }
int nvmlstub_refcount(void) { return refcount; }

#define NEED_INIT() do { if (refcount == 0) { bad++; return UNINITIALIZED; } } while (0)
#define DEV(d) do { NEED_INIT(); if (!(d) || ((d) != (nvmlDevice_t)&devs[0] && (d) != (nvmlDevice_t)&devs[1])) return INVALID_ARGUMENT; } while (0)

static const char *bus_of(int i) { return i == 0 ? "00000000:18:00.0" : "00000000:19:00.0"; }
static void fill_pci(nvmlPciInfo_t *p, int i) {
	memset(p, 0, sizeof *p);
	snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:%02X:00.0", 0x18 + i);
	snprintf(p->busId, sizeof p->busId, "%s", bus_of(i));
	p->bus = 0x18 + i;
	p->pciDeviceId = 0x233510de;
}

nvmlReturn_t nvmlInit_v2(void) { refcount++; return OK; }
nvmlReturn_t nvmlInit(void) { refcount++; return OK; }
nvmlReturn_t nvmlShutdown(void) {
	if (refcount == 0) { bad++; return UNINITIALIZED; }
	refcount--;
	return OK;
}
const char *nvmlErrorString(nvmlReturn_t r) { return r == OK ? "Success" : "Stub error"; }
nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int n) { NEED_INIT(); snprintf(v, n, "580.159.04"); return OK; }
nvmlReturn_t nvmlSystemGetNVMLVersion(char *v, unsigned int n) { NEED_INIT(); snprintf(v, n, "13.580.159.04"); return OK; }
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { NEED_INIT(); *v = 13000; return OK; }
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { NEED_INIT(); *v = 13000; return OK; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { NEED_INIT(); *n = 2; return OK; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
	NEED_INIT();
	if (i > 1) return INVALID_ARGUMENT;
	*d = (nvmlDevice_t)&devs[i];
	return OK;
}
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus, nvmlDevice_t *d) {
	NEED_INIT();
	size_t n = strlen(bus);
	for (int i = 0; i < 2; i++) {
		const char *b = bus_of(i);
		if (n >= 7 && strcasecmp(bus + n - 7, b + strlen(b) - 7) == 0) {
			*d = (nvmlDevice_t)&devs[i];
			return OK;
		}
	}
	return NOT_FOUND;
}
#define IDX(d) (((struct { int index; } *)(d))->index)
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *s, unsigned int n) { DEV(d); snprintf(s, n, "NVIDIA H200"); return OK; }
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *s, unsigned int n) {
	DEV(d); snprintf(s, n, "GPU-%08d-aaaa-bbbb-cccc-dddddddddddd", IDX(d)); return OK;
}
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) { DEV(d); fill_pci(p, IDX(d)); return OK; }
static double lastSample; /* CLOCK_MONOTONIC seconds of the last throughput call; 0: none */
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *g) {
	DEV(d); *g = active > 0 || (lastSample > 0 && now() - lastSample < 1.0) ? 5 : 1; return OK;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *w) { DEV(d); *w = 16; return OK; }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *g) { DEV(d); *g = 5; return OK; }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *w) { DEV(d); *w = 16; return OK; }
nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t d, nvmlBAR1Memory_t *b) {
	DEV(d); b->bar1Total = 256ULL << 30; b->bar1Used = 3ULL << 20; b->bar1Free = b->bar1Total - b->bar1Used; return OK;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) { DEV(d); m->total = 143771ULL << 20; m->used = 0; m->free = m->total; return OK; }
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int *active) {
	DEV(d); if (link >= 18) return INVALID_ARGUMENT; *active = 1; return OK;
}
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t d, unsigned int link, unsigned int *v) {
	DEV(d); if (link >= 18) return INVALID_ARGUMENT; *v = 4; return OK;
}
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *p) {
	DEV(d); if (link >= 18) return INVALID_ARGUMENT; fill_pci(p, 1 - IDX(d)); return OK;
}
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int link, int *t) {
	DEV(d); if (link >= 18) return INVALID_ARGUMENT; *t = 0; /* NVML_NVLINK_DEVICE_TYPE_GPU */ return OK;
}
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int *level) {
	DEV(a); DEV(b); *level = a == b ? 0 : 30; /* HOSTBRIDGE */ return OK;
}
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, int idx, int *status) {
	DEV(a); DEV(b); if (idx < 0 || idx > 4) return INVALID_ARGUMENT; *status = 0; return OK;
}
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned int *kbps) {
	DEV(d);
	if (counter < 0 || counter > 1) return INVALID_ARGUMENT;
	__sync_fetch_and_add(&active, 1);
	lastSample = now();
	usleep(20000);
	__sync_fetch_and_sub(&active, 1);
	const char *s = getenv("NVMLSTUB_KBPS");
	*kbps = s ? (unsigned)atol(s) : 1000;
	return OK;
}
