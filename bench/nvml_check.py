#!/usr/bin/env python3
"""NVML PCIe throughput vs measured copy rate.

usage: nvml_check.py RESULTS.jsonl [TORCH_LOOP_h2d.json DMON_h2d.txt [TORCH_LOOP_d2h.json DMON_d2h.txt]] [--out OUT.json]

1. gpupath's own check: the cuda probe's "*-pinned-sustained" records, a
   stream of 256 MiB pinned copies lasting a few seconds while NVML's PCIe
   counters (nvmlDeviceGetPcieThroughput, 20 ms windows, both directions)
   were sampled in the background. H2D moves data the GPU receives (rx),
   D2H data it sends (tx).
2. An independent reading: `nvidia-smi dmon -s t` (1 s samples, MB/s) while
   PyTorch ran the same kind of copy loop.

Target: NVML within 15% of the copy rate.
"""
import json
import statistics
import sys

WHY = """Why NVML and the copy rate can differ:
  * NVML counts bytes crossing the GPU's PCIe link; the copy rate counts payload.
    If the counters include TLP headers/DLLPs (about 16-24 B per 128-256 B
    payload TLP, plus flow-control and ACK traffic), NVML reads 5-15% high.
  * Each NVML sample is a 20 ms window; windows that straddle the start or
    the end of the loop read low (the median of windows inside the loop is used;
    the mean is printed too). nvidia-smi dmon averages 1 s samples: the first
    and last second are partial (only samples above half the copy rate are used).
  * NVML reports KB/s; gpupath takes KB as 1000 B. If NVML means 1024 B,
    its figures are 2.4% higher than shown.
  * The opposite direction carries read requests (D2H: the GPU's DMA writes
    need no reads; H2D: the GPU issues read requests, so tx shows small
    request traffic)."""


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--out")]
    out = None
    if "--out" in sys.argv:
        out = sys.argv[sys.argv.index("--out") + 1]
        args = [a for a in args if a != out]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    summary = {"gpupath": [], "dmon": []}
    print("gpupath cuda probe, sustained pinned copies with NVML sampling:")
    found = False
    with open(args[0]) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get("probe") != "cuda" or not r.get("variant", "").endswith("-sustained"):
                continue
            found = True
            x = r.get("extra", {})
            d = "rx" if r["variant"].startswith("h2d") else "tx"
            nv, nvm = x.get(f"nvml_{d}_Bps", 0), x.get(f"nvml_{d}_mean_Bps", 0)
            ratio = nv / r["throughput_Bps"] if r["throughput_Bps"] else 0
            good = abs(ratio - 1) <= 0.15
            ok &= good
            other = x.get("nvml_tx_Bps" if d == "rx" else "nvml_rx_Bps", 0)
            print(f"  {r['variant']:22} copy {r['throughput_Bps']/1e9:6.2f} GB/s over {x.get('duration_s', 0):.2f} s | "
                  f"NVML {d} median {nv/1e9:6.2f} mean {nvm/1e9:6.2f} GB/s ({int(x.get(f'nvml_{d}_samples', 0))} windows), "
                  f"other direction {other/1e9:.2f} GB/s | ratio {ratio:.3f} {'PASS' if good else 'FAIL'} (within 15%) | "
                  f"link under load gen{int(x.get('pcie_gen_load', 0))} x{int(x.get('pcie_width_load', 0))}")
            summary["gpupath"].append({"variant": r["variant"], "copy_Bps": r["throughput_Bps"], "nvml_Bps": nv,
                                       "nvml_mean_Bps": nvm, "ratio": ratio, "pass": good})
    if not found:
        print("  no sustained records (NVML unavailable, or nvml_check=0)")
        ok = False
    rest = args[1:]
    if rest:
        print("PyTorch copy loop with nvidia-smi dmon -s t (1 s samples):")
    for i in range(0, len(rest) - 1, 2):
        loop = json.load(open(rest[i]))["loop"]
        col = "rxpci" if loop["dir"] == "h2d" else "txpci"
        vals, idx = [], None
        for line in open(rest[i + 1]):
            f = line.split()
            if not f:
                continue
            if f[0].startswith("#"):
                hdr = [h.lower() for h in line.lstrip("#").split()]
                if col in hdr:
                    idx = hdr.index(col)
                continue
            if idx is not None and idx < len(f):
                try:
                    vals.append(float(f[idx]) * 1e6)  # MB/s
                except ValueError:
                    pass
        busy = [v for v in vals if v > 0.5 * loop["Bps"]]
        if not busy:
            print(f"  {loop['dir']}: dmon shows no busy second ({len(vals)} samples: {vals})")
            continue
        m = statistics.median(busy)
        ratio = m / loop["Bps"]
        print(f"  torch {loop['dir']}: copy {loop['Bps']/1e9:6.2f} GB/s over {loop['seconds']:.2f} s | dmon {col} median "
              f"{m/1e9:6.2f} GB/s over {len(busy)} busy seconds | ratio {ratio:.3f}")
        summary["dmon"].append({"dir": loop["dir"], "copy_Bps": loop["Bps"], "dmon_Bps": m, "ratio": ratio})
    print(WHY)
    summary["pass"] = ok
    if out:
        with open(out, "w") as f:
            json.dump(summary, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
