// Package nvlink reads the outputs of `nvidia-smi nvlink`: the link states
// of --status (-s), the throughput counters of --getthroughput (-gt d and
// -gt r) and the capabilities of --capabilities (-c). A file may hold any
// mix of them, as a script that dumps several reports writes them.
//
// What becomes what:
//
//   - Every GPU header ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: ...)") names a
//     GPU model in Hardware.GPUs, once per GPU index.
//   - Every active link of --status ("Link 0: 26.562 GB/s") is a record:
//     metric bandwidth, test "nvlink-status", op "nvlink", variant "line
//     rate", target "GPU0 link 0", Rate the printed figure in bytes per
//     second, Extra {"gpu", "link"}. It is the link's signalling rate in one
//     direction, not a measurement: a report compares measured NVLink
//     bandwidth with it. Bytes is 0 (a line rate has no message size).
//   - Inactive links ("<inactive>"), links at 0 GB/s and links that are not
//     supported are notes, one per GPU: no record, no rate made up.
//   - The counters of -gt d ("Link 0: Data Tx: 123 KiB") and -gt r ("Raw
//     Tx") are cumulative byte counts since the driver loaded or the
//     counters were reset, with no time base in the output, so no rate can
//     be derived from one output: they become one note per GPU and kind
//     with the tx and rx sums over its links in bytes. Two outputs taken a
//     known time apart give a rate; that is for the caller.
//   - The capabilities of -c ("Link 0, P2P is supported: true") become one
//     note per GPU counting the links that have each capability.
//   - A shell prompt line that holds the command ("root@host:~# nvidia-smi
//     nvlink -s", "> nvidia-smi nvlink --status") sets Command; the marks
//     that people leave where they cut an output ("...", "[...]",
//     "[snip]") are notes; any other line is a problem, with its line.
//
// Units. --status prints GB/s with GB = 1e9 bytes: the figures are the
// decimal line rates of the links (NVLink 2: 8 lanes × 25.78125 Gbit/s =
// 206.25 Gbit/s = 25.781 GB/s on V100; NVLink 4: 2 lanes × 106.25 Gbit/s
// = 26.5625 GB/s on H100; NVLink 5: 53.125 GB/s on GB200). NVML reports the
// same speed in MBps (decimal megabytes: the NVML_FI_DEV_NVLINK_SPEED_MBPS_*
// field values, docs.nvidia.com/deploy/nvml-api). -gt prints KiB, 1024
// bytes, as `nvidia-smi nvlink --help` says ("d: Display tx and rx data
// payload in KiB", "r: ... data payload and protocol overhead in KiB").
package nvlink

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "nvidia-smi-nvlink"

// GB is the "GB" of --status in bytes; KiB the "KiB" of -gt.
const (
	GB  = 1e9
	KiB = 1024
)

var (
	gpuRe     = regexp.MustCompile(`^GPU (\d+): (.+?)(?:\s*\(UUID: [^)]*\))?$`)
	rateRe    = regexp.MustCompile(`^Link (\d+): (\d+(?:\.\d+)?) GB/s$`)
	counterRe = regexp.MustCompile(`^Link (\d+): (Data|Raw) (Tx|Rx): (\d+) KiB$`)
	capRe     = regexp.MustCompile(`^Link (\d+), (.+?): (true|false)$`)
	linkRe    = regexp.MustCompile(`^Link (\d+): (.*)$`)
	trimRe    = regexp.MustCompile(`^(?:\.{3,}|\[\.\.\.\]|\[snip\]|…)$`)
	cmdRe     = regexp.MustCompile(`nvidia-smi\s+nvlink\b.*$`)
)

// PathLink is the path of a link's line rate: a fact of the hardware, not
// a transfer the model prices (pkg/calib says so beside it).
const PathLink = "nvlink-line-rate"

// Detect tells whether b is `nvidia-smi nvlink` output: one of the first
// 4 KiB's lines is a link line of --status, -gt or -c.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b[:min(len(b), 4096)]) {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "Link ") {
			continue
		}
		if rateRe.MatchString(t) || counterRe.MatchString(t) || capRe.MatchString(t) {
			return true
		}
		if m := linkRe.FindStringSubmatch(t); m != nil && m[2] == "<inactive>" {
			return true
		}
	}
	return false
}

// gpu is what the output says about one GPU index; idx -1 collects the
// link lines printed before any GPU header.
type gpu struct {
	idx, line int
	inactive  []string
	zero      []string
	unsup     []string
	counters  map[string]*counter // "Data", "Raw"
	kinds     []string
	caps      map[string][2]int // capability -> links with it, links listed
	capOrder  []string
	capLine   int
}

type counter struct {
	tx, rx float64 // bytes
	links  map[int]bool
	line   int
}

func (g *gpu) name() string {
	if g.idx < 0 {
		return "no GPU header"
	}
	return fmt.Sprintf("GPU%d", g.idx)
}

// Parse reads `nvidia-smi nvlink` output (see the package comment).
func Parse(b []byte) (*obs.Output, error) {
	out := &obs.Output{Tool: Tool}
	var (
		gpus  []*gpu
		byIdx = map[int]*gpu{}
		cur   *gpu
		found bool
	)
	get := func(idx, line int) *gpu {
		if g, ok := byIdx[idx]; ok {
			return g
		}
		g := &gpu{idx: idx, line: line, counters: map[string]*counter{}, caps: map[string][2]int{}}
		byIdx[idx] = g
		gpus = append(gpus, g)
		return g
	}
	problem := func(n int, t, why string) {
		out.Problems = append(out.Problems, obs.Problem{Line: n, Text: t, Reason: why})
	}
	for i, raw := range obs.Lines(b) {
		n := i + 1
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		if m := gpuRe.FindStringSubmatch(t); m != nil {
			idx, err := strconv.Atoi(m[1])
			if err != nil || idx > 1<<20 {
				problem(n, t, "a GPU index that cannot be read")
				cur = nil
				continue
			}
			found = true
			if _, seen := byIdx[idx]; !seen {
				out.Hardware.GPUs = append(out.Hardware.GPUs, m[2])
				out.Hardware.MemoryGPU = true
				out.Hardware.Mark("gpus", n)
			}
			cur = get(idx, n)
			continue
		}
		if strings.HasPrefix(t, "Link ") {
			link(out, n, t, cur, get, problem, &found)
			continue
		}
		switch {
		case trimRe.MatchString(t):
			out.Notes = append(out.Notes, fmt.Sprintf("line %d: the output was cut here (%s)", n, t))
		case cmdRe.MatchString(t):
			c := cmdRe.FindString(t)
			if c := strings.TrimSpace(c); out.Command == "" {
				out.Command = c
			} else if c != out.Command {
				out.Notes = append(out.Notes, fmt.Sprintf("line %d: another command: %s", n, c))
			}
		case cur != nil && isUnsupported(t):
			cur.unsup = append(cur.unsup, "all links")
		default:
			problem(n, t, "not an nvidia-smi nvlink line")
		}
	}
	if !found {
		return nil, obs.NotRecognized(Tool, "no GPU header and no link line of --status, -gt or -c")
	}
	for _, g := range gpus {
		notes(out, g)
	}
	return out, nil
}

func isUnsupported(s string) bool {
	s = strings.ToLower(strings.Trim(s, "() "))
	return s == "not supported" || s == "n/a"
}

// link reads one "Link N..." line.
func link(out *obs.Output, n int, t string, cur *gpu, get func(int, int) *gpu, problem func(int, string, string), found *bool) {
	g := cur
	if g == nil {
		g = get(-1, n)
	}
	num := func(s string) (int, bool) {
		v, err := strconv.Atoi(s)
		if err != nil || v > 1<<20 {
			problem(n, t, "a link number that cannot be read")
			return 0, false
		}
		return v, true
	}
	switch {
	case rateRe.MatchString(t):
		m := rateRe.FindStringSubmatch(t)
		l, ok := num(m[1])
		if !ok {
			return
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil || math.IsInf(v, 0) || v < 0 {
			problem(n, t, "a link rate that cannot be read")
			return
		}
		*found = true
		if v == 0 {
			g.zero = append(g.zero, m[1])
			return
		}
		target := fmt.Sprintf("link %d", l)
		if g.idx >= 0 {
			target = fmt.Sprintf("GPU%d link %d", g.idx, l)
		}
		extra := map[string]float64{"link": float64(l)}
		if g.idx >= 0 {
			extra["gpu"] = float64(g.idx)
		}
		out.Add(obs.Record{Line: n, Test: "nvlink-status", Op: "nvlink", Variant: "line rate", Metric: obs.Bandwidth, Path: PathLink,
			BytesNote: "a link's line rate: no message size", Rate: v * GB, Target: target, Extra: extra, Fields: []string{t}})
	case counterRe.MatchString(t):
		m := counterRe.FindStringSubmatch(t)
		l, ok := num(m[1])
		if !ok {
			return
		}
		v, err := strconv.ParseUint(m[4], 10, 64)
		if err != nil {
			problem(n, t, "a counter that cannot be read")
			return
		}
		*found = true
		c := g.counters[m[2]]
		if c == nil {
			c = &counter{links: map[int]bool{}, line: n}
			g.counters[m[2]] = c
			g.kinds = append(g.kinds, m[2])
		}
		c.links[l] = true
		if m[3] == "Tx" {
			c.tx += float64(v) * KiB
		} else {
			c.rx += float64(v) * KiB
		}
	case capRe.MatchString(t):
		m := capRe.FindStringSubmatch(t)
		if _, ok := num(m[1]); !ok {
			return
		}
		*found = true
		c, seen := g.caps[m[2]]
		if !seen {
			g.capOrder = append(g.capOrder, m[2])
			if g.capLine == 0 {
				g.capLine = n
			}
		}
		c[1]++
		if m[3] == "true" {
			c[0]++
		}
		g.caps[m[2]] = c
	default:
		m := linkRe.FindStringSubmatch(t)
		if m == nil {
			problem(n, t, "a link line that cannot be read")
			return
		}
		if _, ok := num(m[1]); !ok {
			return
		}
		switch rest := m[2]; {
		case rest == "<inactive>":
			*found = true
			g.inactive = append(g.inactive, m[1])
		case isUnsupported(rest):
			*found = true
			g.unsup = append(g.unsup, m[1])
		default:
			problem(n, t, "a link line that is not --status, -gt or -c (not read)")
		}
	}
}

// notes writes what a GPU's lines say that is not a record.
func notes(out *obs.Output, g *gpu) {
	at := fmt.Sprintf("%s (line %d)", g.name(), g.line)
	if len(g.inactive) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: %s inactive", at, links(g.inactive)))
	}
	if len(g.zero) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: %s at 0 GB/s (no record)", at, links(g.zero)))
	}
	if len(g.unsup) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s: NVLink not supported (%s)", at, strings.Join(g.unsup, ", ")))
	}
	for _, k := range g.kinds {
		c := g.counters[k]
		what := "data payload (-gt d)"
		if k == "Raw" {
			what = "payload and protocol overhead (-gt r)"
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%s: %s counters of %d link(s) from line %d: tx %.0f bytes, rx %.0f bytes in all; cumulative counts with no time base, not a rate",
			g.name(), what, len(c.links), c.line, c.tx, c.rx))
	}
	if len(g.capOrder) > 0 {
		parts := make([]string, len(g.capOrder))
		for i, k := range g.capOrder {
			c := g.caps[k]
			parts[i] = fmt.Sprintf("%s %d/%d", k, c[0], c[1])
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%s: capabilities from line %d (links true/listed): %s", g.name(), g.capLine, strings.Join(parts, "; ")))
	}
}

func links(l []string) string {
	if len(l) == 1 {
		return "link " + l[0]
	}
	return "links " + strings.Join(l, ", ")
}
