// Package netperf reads the classic and "MIGRATED" output of netperf's
// TCP_STREAM, TCP_MAERTS, TCP_RR, UDP_RR (and tests of the same layout):
// the banner line, the stacked column headers, the result line, the -v 2
// block (round-trip latency per transaction), the interim results of -D and
// the confidence warning of -i/-I. Each column's name is the words stacked
// above it, found by their position over the result line. Throughput in
// 10^6bits/sec is converted to bytes per second (×10⁶/8), times to
// seconds. For request/response tests the one-way latency is half the
// round trip: the -v 2 block's RoundTrip latency where printed, else
// 1/(2 × transactions per second) (which holds for one transaction in
// flight, not for -b bursts).
package netperf

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "netperf"

var (
	bannerRe  = regexp.MustCompile(`^(MIGRATED )?([A-Z0-9]+) ([A-Z/]+?) TEST from (\S+) \(([^)]*)\) port \d+ (\S+) to (\S+) \(([^)]*)\) port \d+ (\S+)(?: : (.*))?$`)
	interimRe = regexp.MustCompile(`^Interim result:\s*([0-9.]+)\s+(\S+) over ([0-9.]+) seconds`)
	confRe    = regexp.MustCompile(`^!!!\s+Confidence intervals: Throughput\s*:\s*([0-9.]+)%`)
	numRe     = regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+)?$`)
)

// Detect tells whether b is netperf output.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b[:min(len(b), 8192)]) {
		if bannerRe.MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

type tok struct {
	s     string
	start int
}

func tokens(l string) []tok {
	var out []tok
	i := 0
	for i < len(l) {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
		j := i
		for j < len(l) && l[j] != ' ' && l[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, tok{l[i:j], i})
		}
		i = j
	}
	return out
}

// columns names each value of data by the header words nearest above it.
func columns(header []string, data []tok) []string {
	names := make([][]string, len(data))
	for _, h := range header {
		for _, t := range tokens(h) {
			best, bd := 0, math.MaxInt
			for i, d := range data {
				if dd := abs(t.start - d.start); dd < bd {
					best, bd = i, dd
				}
			}
			names[best] = append(names[best], t.s)
		}
	}
	out := make([]string, len(data))
	for i, n := range names {
		out[i] = strings.Join(n, " ")
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// rateScale converts a throughput unit to bytes per second.
func rateScale(unit string) (float64, bool) {
	switch unit {
	case "10^0bits/s", "10^0bits/sec", "bits/sec":
		return 1.0 / 8, true
	case "10^3bits/s", "10^3bits/sec":
		return 1e3 / 8, true
	case "10^6bits/s", "10^6bits/sec":
		return 1e6 / 8, true
	case "10^9bits/s", "10^9bits/sec":
		return 1e9 / 8, true
	case "Bytes/s", "Bytes/sec":
		return 1, true
	case "KBytes/s", "KBytes/sec":
		return 1 << 10, true
	case "MBytes/s", "MBytes/sec":
		return 1 << 20, true
	case "GBytes/s", "GBytes/sec":
		return 1 << 30, true
	}
	return 0, false
}

type result struct {
	line  int
	names []string
	vals  []float64
	raw   []string
}

func (r *result) get(pred func(string) bool) (float64, string, bool) {
	for i, n := range r.names {
		if pred(n) {
			return r.vals[i], n, true
		}
	}
	return 0, "", false
}

func has(words ...string) func(string) bool {
	return func(n string) bool {
		for _, w := range words {
			if !strings.Contains(n, w) {
				return false
			}
		}
		return true
	}
}

// Parse reads netperf output into one record per test.
func Parse(b []byte) (*obs.Output, error) {
	out := &obs.Output{Tool: Tool}
	lines := obs.Lines(b)
	var (
		proto, kind, test, extra string
		header                   []string
		results                  []result
		interim                  []float64
		collecting               bool
	)
	found := false
	for i, raw := range lines {
		n := i + 1
		l := strings.TrimRight(raw, " \t")
		t := strings.TrimSpace(l)
		if m := bannerRe.FindStringSubmatch(t); m != nil {
			found = true
			proto, kind, extra = m[2], m[3], m[10]
			test = proto + "_" + map[string]string{"STREAM": "STREAM", "MAERTS": "MAERTS", "REQUEST/RESPONSE": "RR", "CONNECT/REQUEST/RESPONSE": "CRR"}[kind]
			if strings.HasSuffix(test, "_") {
				test = proto + "_" + kind
			}
			out.Test = test
			if h := m[7]; h != "" {
				out.Hardware.AddHost(h)
			}
			collecting, header = true, nil
			continue
		}
		if !found {
			continue
		}
		switch {
		case interimRe.MatchString(t):
			m := interimRe.FindStringSubmatch(t)
			v, _ := strconv.ParseFloat(m[1], 64)
			if s, ok := rateScale(m[2]); ok && v > 0 {
				interim = append(interim, v*s)
			}
			continue
		case strings.HasPrefix(t, "!!!"):
			if m := confRe.FindStringSubmatch(t); m != nil {
				out.Notes = append(out.Notes, fmt.Sprintf("line %d: netperf did not reach the confidence asked for: throughput ±%s%% (it says: \"%s\")", n, m[1], "investigate the variability"))
			}
			continue
		case strings.HasPrefix(t, "Histogram of") || strings.Contains(t, "USEC") || strings.Contains(t, "MSEC") || strings.Contains(t, "_SEC") || strings.HasPrefix(t, "HIST_TOTAL") || strings.HasPrefix(t, ">100_SECS"):
			collecting = false
			continue
		case t == "":
			continue
		}
		toks := tokens(l)
		allNum := len(toks) > 0
		for _, tk := range toks {
			if !numRe.MatchString(tk.s) {
				allNum = false
			}
		}
		if !allNum {
			if !collecting {
				header = nil
				collecting = true
			}
			if len(results) > 0 && len(header) == 0 && results[len(results)-1].line == n-1 {
				header = nil
			}
			header = append(header, l)
			continue
		}
		if len(header) == 0 {
			// The second line of a request/response result: the remote
			// socket sizes under the local ones.
			if len(results) > 0 && len(toks) <= 2 {
				continue
			}
			out.Problems = append(out.Problems, obs.Problem{Line: n, Text: t, Reason: "numbers without a header"})
			continue
		}
		r := result{line: n, names: columns(header, toks)}
		for _, tk := range toks {
			v, _ := strconv.ParseFloat(tk.s, 64)
			r.vals, r.raw = append(r.vals, v), append(r.raw, tk.s)
		}
		results = append(results, r)
		header, collecting = nil, false
	}
	if !found {
		return nil, obs.NotRecognized(Tool, "no netperf test banner")
	}
	if len(results) == 0 {
		out.Failures = append(out.Failures, obs.Problem{Line: len(lines), Reason: "no result line"})
		return out, nil
	}
	rec, err := record(test, proto, results, interim, extra)
	if err != nil {
		out.Problems = append(out.Problems, obs.Problem{Line: results[0].line, Reason: err.Error()})
		return out, nil
	}
	out.Add(rec)
	return out, nil
}

func record(test, proto string, results []result, interim []float64, extra string) (obs.Record, error) {
	r0 := results[0]
	rec := obs.Record{Line: r0.line, Test: test, Extra: map[string]float64{}, Fields: r0.raw}
	if proto == "TCP" {
		rec.Path = "host-tcp"
	}
	if v, _, ok := r0.get(has("Elapsed")); ok {
		rec.Extra["elapsed_s"] = v
	}
	for _, c := range []struct {
		pred func(string) bool
		key  string
	}{
		{has("CPU", "local"), "cpu_local_percent"}, {has("CPU", "remote"), "cpu_remote_percent"},
		{has("S.dem", "local"), "service_demand_local_us"}, {has("S.dem", "remote"), "service_demand_remote_us"},
	} {
		if v, _, ok := r0.get(c.pred); ok {
			rec.Extra[c.key] = v
		}
	}
	thr, thrName, hasThr := r0.get(has("Throughput"))
	var thrBps float64
	if hasThr {
		unit := thrName[strings.LastIndex(thrName, " ")+1:]
		s, ok := rateScale(unit)
		if !ok {
			return rec, fmt.Errorf("unknown throughput unit %q", unit)
		}
		thrBps = thr * s
	}
	switch {
	case strings.HasSuffix(test, "_RR") || strings.HasSuffix(test, "_CRR"):
		req, _, okq := r0.get(has("Request"))
		resp, _, okp := r0.get(has("Resp"))
		if okq {
			rec.Bytes = int64(req)
		}
		if okq && okp && req != resp {
			rec.Variant = fmt.Sprintf("request %v B, response %v B", req, resp)
		}
		rate, _, okr := r0.get(has("Trans", "Rate"))
		rtt := 0.0
		// The -v 2 block: "RoundTrip Latency usec/Tran" and "Trans Rate per sec".
		for _, r := range results[1:] {
			if v, _, ok := r.get(has("RoundTrip")); ok && v > 0 {
				rtt = v * 1e-6
			}
			if v, _, ok := r.get(has("Trans", "Rate")); ok && !okr {
				rate, okr = v, true
			}
		}
		if okr && rate > 0 {
			rec.MsgRate = rate
			rec.Extra["transactions_per_s"] = rate
		}
		if hasThr {
			rec.Extra["throughput_Bps"] = thrBps
		}
		switch {
		case rtt > 0:
			rec.Time, rec.Central = rtt/2, "mean (half the RoundTrip latency of -v 2)"
		case okr && rate > 0:
			rec.Time, rec.Central = 1/(2*rate), "mean (1/(2 × transactions per second))"
			if strings.Contains(extra, "burst") {
				rec.Central += "; with -b bursts several transactions are in flight, so this is not the latency"
			}
		default:
			return rec, fmt.Errorf("no transaction rate or round-trip latency")
		}
		rec.Extra["round_trip_s"] = 2 * rec.Time
		rec.Metric = obs.Latency
	default:
		if !hasThr || thrBps <= 0 {
			return rec, fmt.Errorf("no throughput")
		}
		if v, _, ok := r0.get(has("Message", "Size")); ok {
			rec.Bytes = int64(v)
		}
		rec.Metric, rec.Rate = obs.Bandwidth, thrBps
		if rec.Bytes > 0 {
			rec.Time, rec.Central = float64(rec.Bytes)/thrBps, "mean"
			for _, v := range interim {
				rec.Samples = append(rec.Samples, float64(rec.Bytes)/v)
			}
		}
	}
	if len(rec.Extra) == 0 {
		rec.Extra = nil
	}
	return rec, nil
}
