/*
 * A stand-in for libcuda.so.1 for the tests of the purego binding
 * (internal/cuda): the driver API functions the GPU probes use, with the
 * real signatures and ABI names, done on the host. Device memory is host
 * memory; copies are memcpy; events read CLOCK_MONOTONIC. Like the real
 * driver, the current context belongs to the calling thread: a call that
 * needs a context on a thread without one fails with
 * CUDA_ERROR_INVALID_CONTEXT (201).
 *
 * Environment: CUDASTUB_NDEV (devices, default 2), CUDASTUB_NO_DEVICE
 * (cuInit fails with CUDA_ERROR_NO_DEVICE), CUDASTUB_HOST_LIMIT (pinned
 * allocations above this many bytes fail with CUDA_ERROR_OUT_OF_MEMORY),
 * CUDASTUB_FAIL (name of a function that fails with
 * CUDA_ERROR_INVALID_VALUE).
 *
 * Build: gcc -shared -fPIC -o libcuda.so.1 cuda_stub.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct ctx { int dev; int retained; int peer[8]; } *CUcontext;
typedef struct stream { int flags; CUcontext ctx; } *CUstream;
typedef struct event { double t; int recorded; } *CUevent;

static struct ctx ctxs[8];
static int initialized;
static long live;       /* allocations, streams and events not yet released */
static long calls;
static __thread CUcontext current;

static int ndev(void) { const char *s = getenv("CUDASTUB_NDEV"); return s ? atoi(s) : 2; }
static int fail(const char *fn) { const char *s = getenv("CUDASTUB_FAIL"); return s && strcmp(s, fn) == 0; }
#define ENTER(fn) do { calls++; if (!initialized && strcmp(#fn, "cuInit")) return 3; if (fail(#fn)) return 1; } while (0)
#define NEED_CTX() do { if (!current) return 201; } while (0)

static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }

long cudastub_live(void) { return live; }
long cudastub_calls(void) { return calls; }
int cudastub_retained(int dev) { return ctxs[dev].retained; }
/* sum of bytes, to check that copies moved the data */
unsigned long long cudastub_sum(const unsigned char *p, size_t n) {
	unsigned long long s = 0;
	for (size_t i = 0; i < n; i++) s += p[i];
	return s;
}
void cudastub_fill(unsigned char *p, unsigned char v, size_t n) { memset(p, v, n); }

CUresult cuInit(unsigned int flags) {
	ENTER(cuInit);
	if (flags != 0) return 1;
	if (getenv("CUDASTUB_NO_DEVICE")) return 100;
	initialized = 1;
	return 0;
}
CUresult cuDriverGetVersion(int *v) { ENTER(cuDriverGetVersion); *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult r, const char **s) {
	switch (r) {
	case 0: *s = "CUDA_SUCCESS"; return 0;
	case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
	case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
	}
	*s = 0;
	return 1;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
	switch (r) {
	case 1: *s = "invalid argument"; return 0;
	case 2: *s = "out of memory"; return 0;
	case 3: *s = "initialization error"; return 0;
	case 100: *s = "no CUDA-capable device is detected"; return 0;
	case 201: *s = "invalid device context"; return 0;
	}
	*s = 0;
	return 1;
}
CUresult cuDeviceGetCount(int *n) { ENTER(cuDeviceGetCount); *n = ndev(); return 0; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
	ENTER(cuDeviceGet);
	if (ordinal < 0 || ordinal >= ndev()) return 101;
	*d = ordinal;
	return 0;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
	ENTER(cuDeviceGetName);
	if (d < 0 || d >= ndev() || len < 1) return 101;
	snprintf(name, len, "Stub GPU %d", d);
	return 0;
}
CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d) {
	ENTER(cuDeviceGetPCIBusId);
	if (d < 0 || d >= ndev() || len < 13) return 1;
	snprintf(bus, len, "0000:%02X:00.0", 0x18 + d);
	return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) { ENTER(cuDeviceTotalMem_v2); *bytes = (size_t)80 << 30; (void)d; return 0; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
	ENTER(cuDevicePrimaryCtxRetain);
	if (d < 0 || d >= ndev()) return 101;
	ctxs[d].dev = d;
	ctxs[d].retained++;
	*c = &ctxs[d];
	return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
	ENTER(cuDevicePrimaryCtxRelease_v2);
	if (d < 0 || d >= ndev() || ctxs[d].retained == 0) return 201;
	ctxs[d].retained--;
	return 0;
}
CUresult cuCtxSetCurrent(CUcontext c) { ENTER(cuCtxSetCurrent); current = c; return 0; }
CUresult cuCtxSynchronize(void) { ENTER(cuCtxSynchronize); NEED_CTX(); return 0; }
CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice p) { ENTER(cuDeviceCanAccessPeer); *can = d != p; return 0; }
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
	ENTER(cuCtxEnablePeerAccess);
	NEED_CTX();
	if (flags != 0 || peer == current) return 1;
	if (current->peer[peer->dev]) return 704;
	current->peer[peer->dev] = 1;
	return 0;
}
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	ENTER(cuMemAlloc_v2);
	NEED_CTX();
	void *m = malloc(n);
	if (!m) return 2;
	live++;
	*p = (CUdeviceptr)(uintptr_t)m;
	return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) { ENTER(cuMemFree_v2); free((void *)(uintptr_t)p); live--; return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t n) {
	ENTER(cuMemAllocHost_v2);
	NEED_CTX();
	const char *lim = getenv("CUDASTUB_HOST_LIMIT");
	if (lim && n > (size_t)atoll(lim)) return 2;
	*p = malloc(n);
	if (!*p) return 2;
	live++;
	return 0;
}
CUresult cuMemFreeHost(void *p) { ENTER(cuMemFreeHost); free(p); live--; return 0; }
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) { ENTER(cuMemsetD8_v2); NEED_CTX(); memset((void *)(uintptr_t)p, v, n); return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { ENTER(cuMemcpyHtoD_v2); NEED_CTX(); memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { ENTER(cuMemcpyDtoH_v2); NEED_CTX(); memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { ENTER(cuMemcpyDtoD_v2); NEED_CTX(); memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n) {
	ENTER(cuMemcpyPeer);
	NEED_CTX();
	if (!dc || !sc || dc == sc) return 1;
	memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
	return 0;
}
static int stream_ok(CUstream s) { return s && s->flags == 1 && s->ctx == current; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) {
	ENTER(cuMemcpyHtoDAsync_v2); NEED_CTX(); if (!stream_ok(st)) return 400;
	memcpy((void *)(uintptr_t)d, s, n); return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) {
	ENTER(cuMemcpyDtoHAsync_v2); NEED_CTX(); if (!stream_ok(st)) return 400;
	memcpy(d, (void *)(uintptr_t)s, n); return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
	ENTER(cuMemcpyDtoDAsync_v2); NEED_CTX(); if (!stream_ok(st)) return 400;
	memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0;
}
CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st) {
	ENTER(cuMemcpyPeerAsync); NEED_CTX(); if (!stream_ok(st) || !dc || !sc || dc == sc) return 400;
	memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0;
}
CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
	ENTER(cuStreamCreate); NEED_CTX();
	*s = calloc(1, sizeof(struct stream));
	(*s)->flags = flags;
	(*s)->ctx = current;
	live++;
	return 0;
}
CUresult cuStreamDestroy_v2(CUstream s) { ENTER(cuStreamDestroy_v2); free(s); live--; return 0; }
CUresult cuStreamSynchronize(CUstream s) { ENTER(cuStreamSynchronize); NEED_CTX(); return stream_ok(s) ? 0 : 400; }
CUresult cuEventCreate(CUevent *e, unsigned int flags) {
	ENTER(cuEventCreate); NEED_CTX(); if (flags != 0) return 1;
	*e = calloc(1, sizeof(struct event));
	live++;
	return 0;
}
CUresult cuEventDestroy_v2(CUevent e) { ENTER(cuEventDestroy_v2); free(e); live--; return 0; }
CUresult cuEventRecord(CUevent e, CUstream s) {
	ENTER(cuEventRecord); NEED_CTX();
	if (s && !stream_ok(s)) return 400;
	e->t = now();
	e->recorded = 1;
	return 0;
}
CUresult cuEventSynchronize(CUevent e) { ENTER(cuEventSynchronize); return e->recorded ? 0 : 400; }
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
	ENTER(cuEventElapsedTime);
	if (!a->recorded || !b->recorded) return 600;
	*ms = (float)((b->t - a->t) * 1e3);
	return 0;
}
