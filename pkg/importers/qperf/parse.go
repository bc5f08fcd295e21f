// Package qperf reads what qperf prints: one block per test ("tcp_bw:",
// "rc_lat:", ...) of "name = value unit" lines, with the -v and -vv
// statistics. qperf's units are decimal (KB/sec = 10³ bytes per second,
// GB = 10⁹ bytes); its latency is one way. Values are converted to bytes,
// seconds and bytes per second; the tests without a message size line
// leave the size 0 (qperf prints msg_size only with -v in some versions).
package qperf

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "qperf"

var (
	testRe = regexp.MustCompile(`^((?:tcp|udp|sdp|rds|sctp|rc|uc|ud|xrc|ver|conf|quit)(?:_[a-z0-9_]+)?):\s*$`)
	kvRe   = regexp.MustCompile(`^\s+([a-z_]+)\s*=\s*([0-9][0-9,.]*)\s*(\S.*?)?\s*$`)
)

var prefix = map[string]float64{"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

// Detect tells whether b is qperf output.
func Detect(b []byte) bool {
	lines := obs.Lines(b)
	seen := map[string]bool{}
	for i, l := range lines {
		if i+1 < len(lines) && testRe.MatchString(l) && kvRe.MatchString(lines[i+1]) {
			return true
		}
		seen[strings.TrimSpace(l)] = true
	}
	// A failed run: qperf prints the error and the server's, prefixed
	// "server: " (qperf.c's remote error reporting).
	for l := range seen {
		if r, ok := strings.CutPrefix(l, "server: "); ok && seen[r] {
			return true
		}
	}
	return false
}

type block struct {
	test string
	line int
	kv   map[string]string // raw "value unit"
	at   map[string]int
}

// value converts "5.78 GB/sec", "26.1 us", "43.1 K/sec", "430,972", "295 KB", "244 sec/GB", "114 % cpus".
func value(num, unit string) (float64, string, error) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("cannot read %q", num)
	}
	unit = strings.TrimSpace(unit)
	switch {
	case unit == "":
		return v, "count", nil
	case strings.HasSuffix(unit, "B/sec"):
		p, ok := prefix[strings.TrimSuffix(unit, "B/sec")]
		if !ok {
			return 0, "", fmt.Errorf("unknown unit %q", unit)
		}
		return v * p, "B/s", nil
	case strings.HasSuffix(unit, "/sec"):
		p, ok := prefix[strings.TrimSpace(strings.TrimSuffix(unit, "/sec"))]
		if !ok {
			return 0, "", fmt.Errorf("unknown unit %q", unit)
		}
		return v * p, "1/s", nil
	case unit == "sec/GB":
		return v / 1e9, "s/B", nil
	case strings.HasPrefix(unit, "%"):
		return v, "%", nil
	}
	switch unit {
	case "ns":
		return v * 1e-9, "s", nil
	case "us":
		return v * 1e-6, "s", nil
	case "ms":
		return v * 1e-3, "s", nil
	case "sec":
		return v, "s", nil
	case "bytes", "B":
		return v, "B", nil
	case "KB", "MB", "GB", "TB":
		return v * prefix[unit[:1]], "B", nil
	}
	return 0, "", fmt.Errorf("unknown unit %q", unit)
}

// Parse reads qperf output: one record per test block that has a
// bandwidth (bw, or recv_bw of UDP) or a latency.
func Parse(b []byte) (*obs.Output, error) { return ParseStream(b, nil) }

// ParseStream is Parse that hands each record to sink, when not nil,
// instead of keeping it (the output's Streamed counts them).
func ParseStream(b []byte, sink func(obs.Record)) (*obs.Output, error) {
	out := &obs.Output{Tool: Tool, Sink: sink}
	defer func() { out.Sink = nil }()
	var blocks []*block
	var cur *block
	found := false
	for i, raw := range obs.Lines(b) {
		n := i + 1
		if strings.TrimSpace(raw) == "" {
			continue
		}
		if m := testRe.FindStringSubmatch(strings.TrimRight(raw, " ")); m != nil {
			cur = &block{test: m[1], line: n, kv: map[string]string{}, at: map[string]int{}}
			blocks = append(blocks, cur)
			found = true
			continue
		}
		if m := kvRe.FindStringSubmatch(raw); m != nil && cur != nil {
			cur.kv[m[1]] = m[2] + " " + m[3]
			cur.at[m[1]] = n
			continue
		}
		t := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(raw, " ") && cur != nil:
			out.Problems = append(out.Problems, obs.Problem{Line: n, Text: t, Reason: "a statistics line that cannot be read"})
		default:
			// qperf prints its errors (local, and the server's prefixed "server:") on their own lines.
			out.Failures = append(out.Failures, obs.Problem{Line: n, Text: t, Reason: "qperf reported an error"})
			found = found || strings.Contains(t, "failed") || strings.HasPrefix(t, "server:") || strings.HasPrefix(t, "qperf:")
		}
	}
	if !found {
		return nil, obs.NotRecognized(Tool, "no qperf test block")
	}
	for _, bl := range blocks {
		rec, err := bl.record()
		if err != nil {
			out.Problems = append(out.Problems, obs.Problem{Line: bl.line, Text: bl.test + ":", Reason: err.Error()})
			continue
		}
		if rec != nil {
			out.Add(*rec)
		}
	}
	if len(blocks) > 0 {
		names := []string{}
		for _, bl := range blocks {
			names = append(names, bl.test)
		}
		out.Test = strings.Join(names, ", ")
	}
	return out, nil
}

func pathOf(test string) string {
	switch {
	case strings.HasPrefix(test, "tcp_"):
		return "host-tcp"
	case strings.HasPrefix(test, "rc_"), strings.HasPrefix(test, "uc_"), strings.HasPrefix(test, "ud_"), strings.HasPrefix(test, "xrc_"):
		return "host-rdma"
	}
	return ""
}

func (bl *block) get(key string) (float64, string, int, bool, error) {
	s, ok := bl.kv[key]
	if !ok {
		return 0, "", 0, false, nil
	}
	num, unit, _ := strings.Cut(s, " ")
	v, u, err := value(num, unit)
	if err != nil {
		return 0, "", bl.at[key], true, fmt.Errorf("%s: %v", key, err)
	}
	return v, u, bl.at[key], true, nil
}

func (bl *block) record() (*obs.Record, error) {
	rec := obs.Record{Test: bl.test, Path: pathOf(bl.test), Extra: map[string]float64{}}
	if size, u, _, ok, err := bl.get("msg_size"); err != nil {
		return nil, err
	} else if ok && u == "B" {
		rec.Bytes = int64(size)
	}
	if rec.Bytes == 0 {
		rec.BytesNote = "the output does not print the message size (qperf -v prints msg_size)"
	}
	for _, key := range []string{"bw", "recv_bw", "send_bw"} {
		v, u, line, ok, err := bl.get(key)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if u != "B/s" {
			return nil, fmt.Errorf("%s: not a bandwidth", key)
		}
		if rec.Metric == "" && v > 0 {
			rec.Metric, rec.Rate, rec.Line = obs.Bandwidth, v, line
			if key != "bw" {
				rec.Variant = map[string]string{"recv_bw": "receiver", "send_bw": "sender"}[key]
			}
		} else {
			rec.Extra[key+"_Bps"] = v
		}
	}
	if v, u, line, ok, err := bl.get("latency"); err != nil {
		return nil, err
	} else if ok && u == "s" && rec.Metric == "" && v > 0 {
		rec.Metric, rec.Time, rec.Central, rec.Line = obs.Latency, v, "mean", line
	}
	if rec.Metric == "" {
		return nil, nil // conf, ver, quit: nothing measured
	}
	if v, u, _, ok, err := bl.get("msg_rate"); err == nil && ok && u == "1/s" {
		rec.MsgRate = v
	}
	for key := range bl.kv {
		switch key {
		case "bw", "recv_bw", "send_bw", "latency", "msg_rate", "msg_size":
			continue
		}
		v, u, _, _, err := bl.get(key)
		if err != nil {
			return nil, err
		}
		name := key
		switch u {
		case "s/B":
			name += "_s_per_B"
		case "%":
			name += "_percent"
		case "B":
			name += "_bytes"
		}
		rec.Extra[name] = v
	}
	if rec.Metric == obs.Bandwidth && rec.Bytes > 0 {
		rec.Time, rec.Central = float64(rec.Bytes)/rec.Rate, "mean"
	}
	if len(rec.Extra) == 0 {
		rec.Extra = nil
	}
	return &rec, nil
}
