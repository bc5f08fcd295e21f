#!/usr/bin/env python3
"""PyTorch reference for gpupath's CUDA copy probe.

Measures, with PyTorch on GPU 0 and the same rules as the probe
(pkg/measure/cudacopy.go):

  * streaming bandwidth: a batch of k back-to-back
    dst.copy_(src, non_blocking=True) between two CUDA events on one stream,
    the time divided by k, k = min(100, max(2, ceil(256 MiB / n)));
  * synchronous latency: the wall time of one dst.copy_(src)
    (non_blocking=False, which waits for the copy), as cudaMemcpy costs it.

Both directions, pinned host memory.  --loop runs one direction for a given
time (for the NVML / nvidia-smi cross-check).  Output: JSON to --out.
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch


def parse_size(s):
    s = s.strip()
    for suffix, mult in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1)):
        if s.endswith(suffix):
            return int(s[: -len(suffix)]) * mult
    return int(s)


def batch(n):
    return min(100, max(2, math.ceil((256 << 20) / n)))


def buffers(n):
    host = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    dev = torch.empty(n, dtype=torch.uint8, device="cuda:0")
    host.fill_(1)
    dev.fill_(2)
    torch.cuda.synchronize()
    return host, dev


def stream_times(src, dst, k, budget, min_reps=5, warmup=3):
    s = torch.cuda.Stream(device="cuda:0")
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    t_end = time.perf_counter() + budget
    with torch.cuda.stream(s):
        for i in range(warmup + 10**6):
            start.record(s)
            for _ in range(k):
                dst.copy_(src, non_blocking=True)
            stop.record(s)
            stop.synchronize()
            if i >= warmup:
                times.append(start.elapsed_time(stop) / 1e3 / k)
            if len(times) >= min_reps and time.perf_counter() > t_end:
                break
    return times


def sync_times(src, dst, budget, min_reps=5, warmup=3):
    times = []
    t_end = time.perf_counter() + budget
    for i in range(warmup + 10**6):
        t0 = time.perf_counter()
        dst.copy_(src)  # non_blocking=False: returns when the copy is done
        t1 = time.perf_counter()
        if i >= warmup:
            times.append(t1 - t0)
        if len(times) >= min_reps and time.perf_counter() > t_end:
            break
    return times


def sweep(sizes, budget):
    out = []
    for n in sizes:
        host, dev = buffers(n)
        for direction, src, dst in (("h2d", host, dev), ("d2h", dev, host)):
            k = batch(n)
            st = stream_times(src, dst, k, budget)
            sy = sync_times(src, dst, budget / 2)
            rec = {
                "bytes": n, "dir": direction, "batch": k,
                "stream_median_s": statistics.median(st), "stream_min_s": min(st), "stream_reps": len(st),
                "sync_median_s": statistics.median(sy), "sync_min_s": min(sy), "sync_reps": len(sy),
            }
            rec["stream_Bps"] = n / rec["stream_median_s"]
            out.append(rec)
            print(f"torch {direction} {n:>11d} B: stream {rec['stream_Bps']/1e9:7.2f} GB/s (k={k}, {len(st)} reps), "
                  f"sync {rec['sync_median_s']*1e6:9.2f} us", file=sys.stderr)
        del host, dev
        torch.cuda.empty_cache()
    return out


def loop(direction, n, seconds):
    host, dev = buffers(n)
    src, dst = (host, dev) if direction == "h2d" else (dev, host)
    s = torch.cuda.Stream(device="cuda:0")
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    # Size the loop from a short measurement.
    per = statistics.median(stream_times(src, dst, 4, 0.2))
    count = max(4, math.ceil(seconds / per))
    t0 = time.time()
    with torch.cuda.stream(s):
        start.record(s)
        for _ in range(count):
            dst.copy_(src, non_blocking=True)
        stop.record(s)
        stop.synchronize()
    t1 = time.time()
    el = start.elapsed_time(stop) / 1e3
    rec = {"dir": direction, "bytes": n, "count": count, "seconds": el, "Bps": n * count / el,
           "wall_start": t0, "wall_end": t1}
    print(f"torch loop {direction}: {count} x {n} B in {el:.2f} s = {rec['Bps']/1e9:.2f} GB/s", file=sys.stderr)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="4,4KiB,64KiB,1MiB,16MiB,64MiB,256MiB,1GiB")
    ap.add_argument("--budget", type=float, default=0.5, help="seconds per size and direction")
    ap.add_argument("--loop", choices=["h2d", "d2h"], help="run one sustained copy loop instead of the sweep")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--size", default="256MiB", help="copy size of --loop")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch: no CUDA device", file=sys.stderr)
        return 2
    info = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0)}
    if a.loop:
        res = {"info": info, "loop": loop(a.loop, parse_size(a.size), a.seconds)}
    else:
        res = {"info": info, "sweep": sweep([parse_size(x) for x in a.sizes.split(",")], a.budget)}
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
