// Package nvbandwidth reads the output of NVIDIA's nvbandwidth, text and
// JSON (-j): the version and device banner, and for each test case its
// matrix of bandwidths (or latencies) between CPU and GPUs or between
// GPUs, one record per measured cell. nvbandwidth's GB/s is 10⁹ bytes per
// second (it prints bandwidth·1e-9); latency matrices are in ns.
//
// The text output does not print the buffer size: records take
// nvbandwidth's default (64 MiB before v0.7, 512 MiB from v0.7 on,
// common.h) and say so; without a version line the size is left 0.
package nvbandwidth

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "nvbandwidth"

var (
	versionRe = regexp.MustCompile(`^nvbandwidth Version:\s*(\S+)`)
	deviceRe  = regexp.MustCompile(`^Device (\d+): (.+?)(?: \(([0-9a-fA-F:.]+)\))?\s*$`)
	procRe    = regexp.MustCompile(`^Process \S+ \(([^)]*)\): device (\d+): (.+?)\s*$`)
	runningRe = regexp.MustCompile(`^Running (\S+?)\.?$`)
	titleRe   = regexp.MustCompile(`^(.+?) (CPU|GPU)\(row\) (->|<-|<->) (CPU|GPU)\(column\)(.*?)\((GB/s|ns|us)\)\s*$`)
	localRe   = regexp.MustCompile(`^(.+?) local GPU\(column\) bandwidth \(GB/s\)\s*$`)
	sumRe     = regexp.MustCompile(`^SUM (\S+) ([0-9.eE+-]+)\s*$`)
	errorRe   = regexp.MustCompile(`(?i)^(ASSERT|ERROR|Invalid value|.*\bfailed\b|CUDA error|Waived)`)
)

// Detect tells whether b is nvbandwidth output.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b) {
		l = strings.TrimSpace(l)
		if versionRe.MatchString(l) || titleRe.MatchString(l) || strings.HasPrefix(l, `"nvbandwidth"`) || strings.HasPrefix(l, `{"nvbandwidth"`) {
			return true
		}
	}
	return false
}

// DefaultBufferSize is nvbandwidth's -b default for a version ("v0.8"):
// 64 MiB until v0.6, 512 MiB from v0.7 (common.h at 3ceb7a4 and 64d6837).
// ok is false when the version cannot be read.
func DefaultBufferSize(version string) (bytes int64, ok bool) {
	v := strings.TrimPrefix(strings.TrimSpace(version), "v")
	maj, min, found := strings.Cut(v, ".")
	if !found {
		return 0, false
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(strings.SplitN(min, ".", 2)[0])
	if err1 != nil || err2 != nil {
		return 0, false
	}
	if a > 0 || b >= 7 {
		return 512 << 20, true
	}
	return 64 << 20, true
}

// matrix is one test case's result as printed.
type matrix struct {
	test     string
	title    string
	line     int
	kind     string // "memcpy CE", "memcpy SM", "memory latency SM", ...
	from, to string // "CPU", "GPU"
	arrow    string
	extra    string // "Read1", "Total", ""
	unit     string
	cols     []int
	local    bool
}

// Parse reads nvbandwidth output, text or JSON.
func Parse(b []byte) (*obs.Output, error) {
	if t := strings.TrimSpace(string(b[:min(len(b), 64)])); strings.HasPrefix(t, "{") {
		return parseJSON(b)
	}
	out := &obs.Output{Tool: Tool}
	var (
		cur     *matrix
		test    string
		pending []int // records of a matrix whose test is named later (by SUM)
		found   bool
		prev    string
	)
	lines := obs.Lines(b)
	for i, raw := range lines {
		n := i + 1
		l := strings.TrimSpace(raw)
		if l == "" {
			cur = nil
			prev = l
			continue
		}
		switch m := versionRe.FindStringSubmatch(l); {
		case m != nil:
			found = true
			out.Version = m[1]
		case deviceRe.MatchString(l):
			d := deviceRe.FindStringSubmatch(l)
			out.Hardware.GPUs = append(out.Hardware.GPUs, d[2])
			out.Hardware.Mark("gpus", n)
			if prev != "" && !strings.Contains(prev, " ") && !strings.Contains(prev, ":") {
				out.Hardware.AddHost(prev) // newer versions print the host name above the devices
			}
		case procRe.MatchString(l):
			d := procRe.FindStringSubmatch(l)
			out.Hardware.AddHost(d[1])
			out.Hardware.GPUs = append(out.Hardware.GPUs, d[3])
		case runningRe.MatchString(l):
			found = true
			test = runningRe.FindStringSubmatch(l)[1]
			cur = nil
		case titleRe.MatchString(l):
			found = true
			t := titleRe.FindStringSubmatch(l)
			cur = &matrix{test: test, title: l, line: n, kind: t[1], from: t[2], arrow: t[3], to: t[4], extra: extraOf(t[5]), unit: t[6]}
			pending = nil
		case localRe.MatchString(l):
			found = true
			cur = &matrix{test: test, title: l, line: n, kind: localRe.FindStringSubmatch(l)[1], from: "GPU", to: "GPU", arrow: "local", unit: "GB/s", local: true}
			pending = nil
		case sumRe.MatchString(l):
			s := sumRe.FindStringSubmatch(l)
			for _, k := range pending {
				if out.Records[k].Test == "" {
					out.Records[k].Test = s[1]
					out.Records[k].Op = opOf(s[1])
					out.Records[k].Path = pathOf(s[1])
				}
			}
			pending, cur = nil, nil
			if test == "" {
				test = s[1]
			}
		case cur != nil && cur.cols == nil:
			for _, f := range strings.Fields(l) {
				c, err := strconv.Atoi(f)
				if err != nil {
					out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: "the column header of the matrix cannot be read"})
					cur = nil
					break
				}
				cur.cols = append(cur.cols, c)
			}
		case cur != nil:
			ks, err := cur.row(out, l, n)
			if err != nil {
				out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: err.Error()})
				continue
			}
			pending = append(pending, ks...)
		case strings.Trim(l, ".… ") == "":
			out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: "an elision mark, not nvbandwidth output: what it replaced is missing"})
		case errorRe.MatchString(l):
			out.Failures = append(out.Failures, obs.Problem{Line: n, Text: l, Reason: "nvbandwidth reported an error"})
		}
		prev = l
	}
	if !found {
		return nil, obs.NotRecognized(Tool, "no nvbandwidth version line or matrix")
	}
	finish(out)
	return out, nil
}

// finish sizes the records and fills the hardware.
func finish(out *obs.Output) {
	size, ok := DefaultBufferSize(out.Version)
	note := ""
	if ok {
		note = fmt.Sprintf("nvbandwidth %s's default buffer (%d MiB); -b changes it and the output does not print it", out.Version, size>>20)
	} else {
		size, note = 0, "the output prints neither its buffer size nor its version"
	}
	for i := range out.Records {
		r := &out.Records[i]
		if r.Bytes == 0 {
			r.Bytes, r.BytesNote = size, note
		}
		if r.Test == "" {
			r.Test = "nvbandwidth"
		}
		if r.Metric == obs.Bandwidth && r.Bytes > 0 {
			r.Time, r.Central = float64(r.Bytes)/r.Rate, "median"
		}
	}
	if len(out.Hardware.GPUs) > 0 {
		out.Hardware.MemoryGPU = true
	}
	tests := []string{}
	for _, r := range out.Records {
		if len(tests) == 0 || tests[len(tests)-1] != r.Test {
			tests = append(tests, r.Test)
		}
	}
	out.Test = strings.Join(tests, ", ")
}

// extraOf is what a matrix title says between the columns and the unit,
// without the word "bandwidth": "Read1", "Total", "".
func extraOf(s string) string {
	return strings.TrimSpace(strings.Replace(s, "bandwidth", "", 1))
}

// opOf and pathOf say what a test measures: a copy between host and
// device memory (no path of its own: the copy stages A and G of the
// host-staged paths) or between GPUs (gpu-peer).
func opOf(test string) string {
	for _, p := range []string{"host_to_device", "device_to_host", "device_to_device", "all_to_host", "host_to_all", "all_to_one", "one_to_all", "all_to_all", "device_local"} {
		if strings.HasPrefix(test, p) {
			return p
		}
	}
	return ""
}

func pathOf(test string) string {
	if strings.HasPrefix(test, "device_to_device") || strings.HasPrefix(test, "all_to_one") || strings.HasPrefix(test, "one_to_all") || strings.HasPrefix(test, "all_to_all") {
		return "gpu-peer"
	}
	return ""
}

// row reads one row of a matrix into records (their indices in out.Records).
func (m *matrix) row(out *obs.Output, l string, n int) ([]int, error) {
	f := strings.Fields(l)
	r, err := strconv.Atoi(f[0])
	if err != nil {
		return nil, fmt.Errorf("a matrix row without its row number")
	}
	vals := f[1:]
	if len(vals) != len(m.cols) {
		return nil, fmt.Errorf("%d values, the matrix has %d columns", len(vals), len(m.cols))
	}
	var ks []int
	for j, v := range vals {
		if v == "N/A" {
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return ks, fmt.Errorf("column %d: cannot read %q", m.cols[j], v)
		}
		if x == 0 {
			continue // the diagonal of a GPU–GPU matrix: not measured
		}
		src, dst := fmt.Sprintf("%s%d", m.from, r), fmt.Sprintf("%s%d", m.to, m.cols[j])
		target := src + " -> " + dst
		switch m.arrow {
		case "<-":
			target = dst + " -> " + src
		case "<->":
			target = src + " <-> " + dst
		case "local":
			target = dst
		}
		variant := m.kind
		if m.extra != "" {
			variant += " " + strings.ToLower(m.extra)
		}
		rec := obs.Record{Line: n, Test: m.test, Op: opOf(m.test), Variant: variant, Target: target, Path: pathOf(m.test)}
		if m.unit == "GB/s" {
			rec.Metric, rec.Rate = obs.Bandwidth, x*1e9
		} else {
			scale := 1e-9
			if m.unit == "us" {
				scale = 1e-6
			}
			rec.Metric, rec.Time, rec.Central = obs.Latency, x*scale, "median"
			rec.Bytes, rec.BytesNote = 8, "a pointer-chase of 8-byte loads"
		}
		if out.Add(rec) {
			ks = append(ks, len(out.Records)-1)
		}
	}
	return ks, nil
}
