#!/usr/bin/env python3
"""Compare gpupath's CUDA copy probe with the PyTorch reference.

usage: compare_copy.py RESULTS.jsonl TORCH.json [OUT.json]

Streaming pinned bandwidth (cuda-event records of h2d/d2h-pinned-stream vs
torch's copy_(non_blocking=True) between events) and synchronous small-copy
latency (wall records of h2d/d2h-pinned vs torch's blocking copy_), per size
and direction. Checks: bandwidth ratio gpupath/torch >= 0.98 at sizes >=
16 MiB in both directions; pinned bandwidth at 1 GiB >= 85% of PCIe gen5 x16
raw (63.0 GB/s: 32 GT/s x 16 lanes x 128/130 / 8).
"""
import json
import sys

GEN5X16_RAW = 32e9 * 16 * 128 / 130 / 8  # bytes/s


def load_ours(path):
    bw, lat = {}, {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a line cut off by a killed run
            if r.get("probe") != "cuda" or r.get("target") != "gpu0":
                continue
            v, t, n = r.get("variant"), r.get("timer"), r.get("bytes")
            if v in ("h2d-pinned-stream", "d2h-pinned-stream") and t == "cuda-event":
                bw[(v[:3], n)] = r["throughput_Bps"]
            if v in ("h2d-pinned", "d2h-pinned") and t == "wall":
                lat[(v[:3], n)] = r["median_s"]
    return bw, lat


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    bw, lat = load_ours(sys.argv[1])
    torch = json.load(open(sys.argv[2]))
    tbw = {(r["dir"], r["bytes"]): r["stream_Bps"] for r in torch["sweep"]}
    tlat = {(r["dir"], r["bytes"]): r["sync_median_s"] for r in torch["sweep"]}
    rows, ok = [], True
    print(f"torch {torch['info']}")
    print(f"{'dir':4} {'bytes':>11} {'gpupath GB/s':>13} {'torch GB/s':>11} {'ratio':>6}   {'gpupath sync':>13} {'torch sync':>11}")
    for key in sorted(set(bw) | set(tbw), key=lambda k: (k[0], k[1])):
        d, n = key
        a, b = bw.get(key), tbw.get(key)
        ratio = a / b if a and b else None
        la, lb = lat.get(key), tlat.get(key)
        rows.append({"dir": d, "bytes": n, "gpupath_Bps": a, "torch_Bps": b, "ratio": ratio,
                     "gpupath_sync_s": la, "torch_sync_s": lb})
        fmt = lambda x, s=1e9, p=2: f"{x/s:.{p}f}" if x else "-"
        print(f"{d:4} {n:>11} {fmt(a):>13} {fmt(b):>11} {ratio if ratio is None else format(ratio, '.3f'):>6}   "
              f"{fmt(la, 1e-6) + ' us' if la else '-':>13} {fmt(lb, 1e-6) + ' us' if lb else '-':>11}")
    verdicts = []
    for d in ("h2d", "d2h"):
        big = [r for r in rows if r["dir"] == d and r["bytes"] >= 16 << 20 and r["ratio"] is not None]
        if not big:
            verdicts.append(f"{d}: no sizes >= 16 MiB measured by both")
            ok = False
            continue
        worst = min(big, key=lambda r: r["ratio"])
        good = worst["ratio"] >= 0.98
        ok &= good
        verdicts.append(f"{d}: worst ratio at >= 16 MiB {worst['ratio']:.3f} ({worst['bytes']} B): {'PASS' if good else 'FAIL'} (target >= 0.98)")
        g = bw.get((d, 1 << 30))
        if g:
            frac = g / GEN5X16_RAW
            ok &= frac >= 0.85
            verdicts.append(f"{d}: 1 GiB pinned {g/1e9:.2f} GB/s = {frac*100:.1f}% of gen5 x16 raw {GEN5X16_RAW/1e9:.1f} GB/s: "
                            f"{'PASS' if frac >= 0.85 else 'FAIL'} (target >= 85%)")
        small = min((r for r in rows if r["dir"] == d and r["gpupath_sync_s"] and r["torch_sync_s"]), key=lambda r: r["bytes"], default=None)
        if small:
            verdicts.append(f"{d}: small-copy latency at {small['bytes']} B: gpupath {small['gpupath_sync_s']*1e6:.2f} us, "
                            f"torch {small['torch_sync_s']*1e6:.2f} us (synchronous copy, wall clock)")
    print("\n".join(verdicts))
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump({"rows": rows, "verdicts": verdicts, "pass": ok, "torch": torch["info"]}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
