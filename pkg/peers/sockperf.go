package peers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Sockperf is the latency summary of a `sockperf ping-pong` (or
// under-load) client run. sockperf reports one-way latency: half the round
// trip. Times are in seconds (sockperf prints microseconds).
type Sockperf struct {
	Version string // "3.7-no.git"
	// RunTime is the valid duration in seconds, without the warm-up.
	RunTime                        float64
	SentMessages, ReceivedMessages int64
	AvgLatency                     float64
	Observations                   int64
	// Percentiles maps a percentile (50, 99, 99.9 ...) to the latency.
	Percentiles map[float64]float64
	Min, Max    float64
}

// Median is the 50th percentile, if sockperf printed it.
func (s *Sockperf) Median() (float64, bool) {
	v, ok := s.Percentiles[50]
	return v, ok
}

// SortedPercentiles lists the percentiles printed, ascending.
func (s *Sockperf) SortedPercentiles() []float64 {
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
	reAvg         = regexp.MustCompile(`====> avg-lat(?:ency)?=\s*([0-9.]+)`)
	reTotal       = regexp.MustCompile(`Total (\d+) observations`)
	rePercentile  = regexp.MustCompile(`---> percentile\s+([0-9.]+)\s*=\s*([0-9.]+)`)
	reObservation = regexp.MustCompile(`---> <(MIN|MAX)> observation\s*=\s*([0-9.]+)`)
)

// maxSockperfLine bounds a line of sockperf output.
const maxSockperfLine = 64 << 10

// ParseSockperf reads the client output of `sockperf ping-pong` (3.5 to
// 3.10 formats, with or without the ANSI colours 3.7 prints, CRLF or LF).
// When the output holds statistics for several servers, the first is read.
// Output without a latency summary (a throughput run, an error) is an error.
func ParseSockperf(b []byte) (*Sockperf, error) {
	s := &Sockperf{Percentiles: map[float64]float64{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 4096), maxSockperfLine)
	servers, haveAvg := 0, false
	for sc.Scan() {
		line := strings.TrimRight(ansi.ReplaceAllString(sc.Text(), ""), "\r ")
		if strings.Contains(line, "Printing statistics for Server No:") {
			servers++
			if servers > 1 {
				break
			}
		}
		if m := reVersion.FindStringSubmatch(line); m != nil && s.Version == "" {
			s.Version = m[1]
		}
		if m := reValid.FindStringSubmatch(line); m != nil {
			s.RunTime = num(m[1])
			s.SentMessages, _ = strconv.ParseInt(m[2], 10, 64)
			s.ReceivedMessages, _ = strconv.ParseInt(m[3], 10, 64)
		}
		if m := reAvg.FindStringSubmatch(line); m != nil {
			s.AvgLatency, haveAvg = num(m[1])*1e-6, true
		}
		if m := reTotal.FindStringSubmatch(line); m != nil {
			s.Observations, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if m := rePercentile.FindStringSubmatch(line); m != nil {
			p := num(m[1])
			if p > 0 && p <= 100 {
				s.Percentiles[p] = num(m[2]) * 1e-6
			}
		}
		if m := reObservation.FindStringSubmatch(line); m != nil {
			if m[1] == "MIN" {
				s.Min = num(m[2]) * 1e-6
			} else {
				s.Max = num(m[2]) * 1e-6
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sockperf: %w", err)
	}
	if !haveAvg {
		return nil, errors.New("sockperf: no latency summary (avg-latency) in the output")
	}
	for _, v := range append([]float64{s.AvgLatency, s.Min, s.Max, s.RunTime}, valuesOf(s.Percentiles)...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("sockperf: unreadable number in the summary")
		}
	}
	return s, nil
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
