// Package bandwidthtest reads the output of the CUDA samples' bandwidthTest:
// the readable tables (quick, range and shmoo modes) and the --csv lines,
// for host-to-device, device-to-host and device-to-device copies of pinned
// or pageable memory.
//
// Units follow the sample's own arithmetic. Older samples print MB/s
// computed as (1<<10)·bytes·iterations / (ms·(1<<20)), which is 1 024 000
// bytes per second per "MB/s" (bandwidthTest.cu, testDeviceToHostTransfer,
// CUDA samples ≤ 10.x); newer ones print GB/s = bytes / 1e9 / s (NVIDIA/
// cuda-samples, Samples/1_Utilities/bandwidthTest). The device-to-device
// figure counts each byte twice (read and write), as the sample does.
package bandwidthtest

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "bandwidthTest"

// MBps is the old sample's "MB/s" in bytes per second.
const MBps = 1 << 10 * 1000

var (
	deviceRe = regexp.MustCompile(`^Device (\d+): (.+?)\s*$`)
	kindRe   = regexp.MustCompile(`^(Host to Device|Device to Host|Device to Device) Bandwidth, (\d+) Device\(s\)`)
	memRe    = regexp.MustCompile(`^(PINNED|PAGEABLE) Memory Transfers`)
	headRe   = regexp.MustCompile(`^Transfer Size \(Bytes\)\s+Bandwidth\((MB|GB)/s\)`)
	rowRe    = regexp.MustCompile(`^(\d+)\s+([0-9.]+)\s*$`)
	csvRe    = regexp.MustCompile(`^bandwidthTest-(H2D|D2H|D2D)(?:-(Paged|Pinned))?(-WriteCombined)?, Bandwidth = ([0-9.]+) (MB|GB)/s, Time = ([0-9.]+) s, Size = (\d+) bytes, NumDevsUsed = (\d+)`)
	resultRe = regexp.MustCompile(`^Result = (\S+)`)
)

var ops = map[string]string{"Host to Device": "h2d", "Device to Host": "d2h", "Device to Device": "d2d", "H2D": "h2d", "D2H": "d2h", "D2D": "d2d"}

// Detect tells whether b is bandwidthTest output.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b[:min(len(b), 4096)]) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[CUDA Bandwidth Test]") || csvRe.MatchString(l) {
			return true
		}
	}
	return false
}

// Parse reads bandwidthTest output: one record per size and kind of copy.
func Parse(b []byte) (*obs.Output, error) { return ParseStream(b, nil) }

// ParseStream is Parse that hands each record to sink, when not nil,
// instead of keeping it (the output's Streamed counts them).
func ParseStream(b []byte, sink func(obs.Record)) (*obs.Output, error) {
	out := &obs.Output{Tool: Tool, Test: "bandwidthTest", Sink: sink}
	defer func() { out.Sink = nil }()
	var (
		op, mem, unit string
		devs          int
		wc, found     bool
	)
	for i, raw := range obs.Lines(b) {
		n := i + 1
		l := strings.TrimSpace(raw)
		if l == "" {
			continue
		}
		switch {
		case strings.HasPrefix(l, "[CUDA Bandwidth Test]"):
			found = true
		case deviceRe.MatchString(l):
			out.Hardware.GPUs = append(out.Hardware.GPUs, deviceRe.FindStringSubmatch(l)[2])
			out.Hardware.MemoryGPU = true
			out.Hardware.Mark("gpus", n)
		case strings.HasSuffix(l, " Mode") && !strings.Contains(l, " "+"Bandwidth"):
			out.Notes = append(out.Notes, l)
		case strings.Contains(l, "Cumulative Bandwidth to be computed from all the devices"):
			out.Notes = append(out.Notes, "cumulative bandwidth over all the devices (--device=all)")
		case kindRe.MatchString(l):
			m := kindRe.FindStringSubmatch(l)
			op, mem, unit, wc = ops[m[1]], "", "", false
			devs, _ = strconv.Atoi(m[2])
		case memRe.MatchString(l):
			mem = strings.ToLower(memRe.FindStringSubmatch(l)[1])
			wc = strings.Contains(l, "Write-Combined")
		case strings.HasPrefix(l, "Write-Combined Memory Writes are Enabled"):
			wc = true
			if headRe.MatchString(strings.TrimSpace(strings.TrimPrefix(l, "Write-Combined Memory Writes are Enabled"))) {
				unit = headRe.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(l, "Write-Combined Memory Writes are Enabled")))[1]
			}
		case headRe.MatchString(l):
			unit = headRe.FindStringSubmatch(l)[1]
		case rowRe.MatchString(l) && unit != "" && op != "":
			m := rowRe.FindStringSubmatch(l)
			size, err1 := strconv.ParseInt(m[1], 10, 64)
			v, err2 := strconv.ParseFloat(m[2], 64)
			if err1 != nil || err2 != nil || math.IsInf(v, 0) {
				out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: "a row that cannot be read"})
				continue
			}
			add(out, n, op, mem, wc, devs, size, v, unit, strings.Fields(l))
		case csvRe.MatchString(l):
			found = true
			m := csvRe.FindStringSubmatch(l)
			v, _ := strconv.ParseFloat(m[4], 64)
			size, _ := strconv.ParseInt(m[7], 10, 64)
			d, _ := strconv.Atoi(m[8])
			add(out, n, ops[m[1]], strings.ToLower(strings.Replace(m[2], "Paged", "pageable", 1)), m[3] != "", d, size, v, m[5], []string{l})
		case resultRe.MatchString(l):
			if r := resultRe.FindStringSubmatch(l)[1]; r != "PASS" {
				out.Failures = append(out.Failures, obs.Problem{Line: n, Text: l, Reason: "bandwidthTest did not pass"})
			}
		case rowRe.MatchString(l):
			out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: "a result row outside a table"})
		}
	}
	if !found {
		return nil, obs.NotRecognized(Tool, "no bandwidthTest banner or CSV line")
	}
	return out, nil
}

func add(out *obs.Output, line int, op, mem string, wc bool, devs int, size int64, v float64, unit string, fields []string) {
	scale := float64(MBps)
	if unit == "GB" {
		scale = 1e9
	}
	rate := v * scale
	if rate <= 0 || size <= 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("line %d: a bandwidth of 0: no record", line))
		return
	}
	variant := mem
	if wc {
		variant += " write-combined"
	}
	r := obs.Record{Line: line, Test: "bandwidthTest", Op: op, Variant: strings.TrimSpace(variant), Metric: obs.Bandwidth, Bytes: size,
		Rate: rate, Time: float64(size) / rate, Central: "mean", Fields: fields}
	if op == "d2d" {
		r.Time = 2 * float64(size) / rate // the rate counts the bytes twice
		r.Extra = map[string]float64{"bytes_counted_twice": 1}
	}
	if devs > 1 {
		r.Target = fmt.Sprintf("%d devices together", devs)
	}
	out.Add(r)
}
