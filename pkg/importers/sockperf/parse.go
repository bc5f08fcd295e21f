package sockperf

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "sockperf"

// Summary is the latency summary of a `sockperf ping-pong` (or
// under-load) client run, for one server. sockperf reports one-way
// latency: half the round trip. Times are in seconds.
type Summary struct {
	Version string // "3.7-no.git"
	// Protocol is "TCP" or "UDP" from the "[ 0] IP = ... # TCP" line.
	Protocol string
	// RunTime is the valid duration in seconds, without the warm-up.
	RunTime                        float64
	SentMessages, ReceivedMessages int64
	AvgLatency                     float64
	StdDev                         float64
	Observations                   int64
	// Percentiles maps a percentile (50, 99, 99.9 ...) to the latency.
	Percentiles map[float64]float64
	Min, Max    float64
	// Line is the line of the avg-latency figure.
	Line int
}

// Throughput is the summary of `sockperf throughput`.
type Throughput struct {
	Messages int64
	Seconds  float64
	MsgRate  float64 // messages per second
	Rate     float64 // bytes per second
	Line     int
}

// Median is the 50th percentile, if sockperf printed it.
func (s *Summary) Median() (float64, bool) {
	v, ok := s.Percentiles[50]
	return v, ok
}

// SortedPercentiles lists the percentiles printed, ascending.
func (s *Summary) SortedPercentiles() []float64 {
	ps := make([]float64, 0, len(s.Percentiles))
	for p := range s.Percentiles {
		ps = append(ps, p)
	}
	sort.Float64s(ps)
	return ps
}

var (
	ansi          = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	reVersion     = regexp.MustCompile(`== version #(\S+)`)
	reValid       = regexp.MustCompile(`\[Valid Duration\] RunTime=([0-9.]+) sec; SentMessages=(\d+); ReceivedMessages=(\d+)`)
	reAvg         = regexp.MustCompile(`====> avg-lat(?:ency)?=\s*([0-9.]+)(?:\s*\(std-dev=([0-9.]+))?`)
	reTotal       = regexp.MustCompile(`Total (\d+) observations`)
	rePercentile  = regexp.MustCompile(`---> percentile\s+([0-9.]+)\s*=\s*([0-9.]+)`)
	reObservation = regexp.MustCompile(`---> <(MIN|MAX)> observation\s*=\s*([0-9.]+)`)
	reServer      = regexp.MustCompile(`^\[\s*\d+\] IP = \S+\s+PORT =\s*\d+ # (TCP|UDP)`)
	reCmdMsg      = regexp.MustCompile(`Cmd Line: sockperf .*(?:-m|--msg-size)[ =](\d+)`)
	reTotalMsgs   = regexp.MustCompile(`Total of (\d+) messages sent in ([0-9.]+) sec`)
	reMsgRate     = regexp.MustCompile(`Summary: Message Rate is (\d+) \[msg/sec\]`)
	reBandwidth   = regexp.MustCompile(`Summary: BandWidth is ([0-9.]+) MBps`)
)

// scanned is everything one pass over the output found.
type scanned struct {
	summaries  []*Summary
	throughput *Throughput
	version    string
	protocol   string
	msgSize    int64
	msgLine    int
	errors     []obs.Problem
	found      bool
}

func scan(lines []string) *scanned {
	sc := &scanned{}
	var cur *Summary
	for i, raw := range lines {
		n := i + 1
		line := strings.TrimRight(ansi.ReplaceAllString(raw, ""), "\r ")
		if strings.HasPrefix(line, "sockperf") || strings.HasPrefix(line, " VMA INFO") {
			sc.found = true
		}
		if m := reVersion.FindStringSubmatch(line); m != nil && sc.version == "" {
			sc.version = m[1]
		}
		if m := reServer.FindStringSubmatch(line); m != nil && sc.protocol == "" {
			sc.protocol = m[1]
		}
		if m := reCmdMsg.FindStringSubmatch(line); m != nil {
			sc.msgSize, _ = strconv.ParseInt(m[1], 10, 64)
			sc.msgLine = n
		}
		if strings.Contains(line, "Printing statistics for Server No:") {
			cur = &Summary{Percentiles: map[float64]float64{}}
			sc.summaries = append(sc.summaries, cur)
			continue
		}
		if strings.Contains(line, "sockperf: ERROR") || strings.Contains(line, "sockperf: FATAL") {
			sc.errors = append(sc.errors, obs.Problem{Line: n, Text: strings.TrimSpace(line), Reason: "sockperf reported an error"})
		}
		if m := reTotalMsgs.FindStringSubmatch(line); m != nil {
			if sc.throughput == nil {
				sc.throughput = &Throughput{}
			}
			sc.throughput.Messages, _ = strconv.ParseInt(m[1], 10, 64)
			sc.throughput.Seconds = num(m[2])
		}
		if m := reMsgRate.FindStringSubmatch(line); m != nil {
			if sc.throughput == nil {
				sc.throughput = &Throughput{}
			}
			sc.throughput.MsgRate = num(m[1])
		}
		if m := reBandwidth.FindStringSubmatch(line); m != nil {
			if sc.throughput == nil {
				sc.throughput = &Throughput{}
			}
			sc.throughput.Rate, sc.throughput.Line = num(m[1])*1e6, n
		}
		if m := reAvg.FindStringSubmatch(line); m != nil {
			if cur == nil { // an excerpt without the "Printing statistics" line
				cur = &Summary{Percentiles: map[float64]float64{}}
				sc.summaries = append(sc.summaries, cur)
			}
			cur.AvgLatency, cur.Line = num(m[1])*1e-6, n
			if m[2] != "" {
				cur.StdDev = num(m[2]) * 1e-6
			}
		}
		if cur == nil {
			continue
		}
		if m := reValid.FindStringSubmatch(line); m != nil {
			cur.RunTime = num(m[1])
			cur.SentMessages, _ = strconv.ParseInt(m[2], 10, 64)
			cur.ReceivedMessages, _ = strconv.ParseInt(m[3], 10, 64)
		}
		if m := reTotal.FindStringSubmatch(line); m != nil {
			cur.Observations, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if m := rePercentile.FindStringSubmatch(line); m != nil {
			if p := num(m[1]); p > 0 && p <= 100 {
				cur.Percentiles[p] = num(m[2]) * 1e-6
			}
		}
		if m := reObservation.FindStringSubmatch(line); m != nil {
			if m[1] == "MIN" {
				cur.Min = num(m[2]) * 1e-6
			} else {
				cur.Max = num(m[2]) * 1e-6
			}
		}
	}
	for _, s := range sc.summaries {
		s.Version, s.Protocol = sc.version, sc.protocol
	}
	return sc
}

// ParseLatency reads the client output of `sockperf ping-pong`. When the
// output holds statistics for several servers, the first is read. Output
// without a latency summary (a throughput run, an error) is an error.
func ParseLatency(b []byte) (*Summary, error) {
	sc := scan(obs.Lines(b))
	if len(sc.summaries) == 0 || sc.summaries[0].Line == 0 {
		return nil, errors.New("sockperf: no latency summary (avg-latency) in the output")
	}
	s := sc.summaries[0]
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Summary) check() error {
	for _, v := range append([]float64{s.AvgLatency, s.Min, s.Max, s.RunTime, s.StdDev}, valuesOf(s.Percentiles)...) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return errors.New("sockperf: unreadable number in the summary")
		}
	}
	return nil
}

// Detect tells whether b is sockperf output.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b[:min(len(b), 8192)]) {
		l = ansi.ReplaceAllString(l, "")
		if strings.HasPrefix(l, "sockperf: ") && (reVersion.MatchString(l) || strings.Contains(l, "[Total Run]") ||
			strings.Contains(l, "avg-lat") || strings.Contains(l, "Summary: ") || strings.Contains(l, "Total of ")) {
			return true
		}
	}
	return false
}

// Parse reads sockperf output into observations: one latency record per
// server's statistics (avg as the central value, the percentiles, min and
// max), or one bandwidth record for a throughput summary. The message size
// is known only when the output shows the command line (VMA's banner);
// otherwise Bytes is 0 and says so.
func Parse(b []byte) (*obs.Output, error) {
	sc := scan(obs.Lines(b))
	if !sc.found {
		return nil, obs.NotRecognized(Tool, "no sockperf lines")
	}
	out := &obs.Output{Tool: Tool, Version: sc.version, Failures: sc.errors}
	note := ""
	if sc.msgSize == 0 {
		note = "the output does not print the message size (-m)"
	}
	path := ""
	switch sc.protocol {
	case "TCP":
		path = "host-tcp"
	case "":
		out.Notes = append(out.Notes, "the output does not say TCP or UDP; no model path is assumed")
	}
	for _, l := range obs.Lines(b) {
		if strings.Contains(l, "VMA INFO: VMA_VERSION") {
			path = ""
			out.Notes = append(out.Notes, "VMA (LD_PRELOAD libvma): kernel bypass, not the kernel's TCP/IP stack; no model path is assumed")
			break
		}
	}
	for i, s := range sc.summaries {
		if s.Line == 0 {
			continue
		}
		if err := s.check(); err != nil {
			out.Problems = append(out.Problems, obs.Problem{Line: s.Line, Reason: err.Error()})
			continue
		}
		r := obs.Record{Line: s.Line, Test: "ping-pong", Variant: strings.ToLower(sc.protocol), Metric: obs.Latency,
			Bytes: sc.msgSize, BytesNote: note, Time: s.AvgLatency, Central: "mean", Stdev: s.StdDev, Min: s.Min, Max: s.Max,
			P50: s.Percentiles[50], P90: s.Percentiles[90], P99: s.Percentiles[99], P999: s.Percentiles[99.9],
			Iterations: s.Observations, Path: path}
		if len(sc.summaries) > 1 {
			r.Target = fmt.Sprintf("server %d", i)
		}
		if s.RunTime > 0 {
			r.Extra = map[string]float64{"run_s": s.RunTime}
		}
		out.Add(r)
	}
	if t := sc.throughput; t != nil && t.Rate > 0 && !math.IsInf(t.Rate, 0) {
		out.Add(obs.Record{Line: t.Line, Test: "throughput", Variant: strings.ToLower(sc.protocol),
			Metric: obs.Bandwidth, Bytes: sc.msgSize, BytesNote: note, Rate: t.Rate, MsgRate: t.MsgRate, Iterations: t.Messages, Path: path})
	}
	if sc.msgLine > 0 {
		out.Command = strings.TrimSpace(strings.SplitN(obs.Lines(b)[sc.msgLine-1], "Cmd Line:", 2)[1])
	}
	return out, nil
}

func num(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

func valuesOf(m map[float64]float64) []float64 {
	v := make([]float64, 0, len(m))
	for _, x := range m {
		v = append(v, x)
	}
	return v
}
