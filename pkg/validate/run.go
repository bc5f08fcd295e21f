package validate

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Result is one row modeled: the published value and the model's, in base
// units (seconds or bytes per second), or the reason the row is left out.
type Result struct {
	Row  Row
	Mode Mode
	// Model says what was evaluated: "gdr one-way latency at 64 KiB".
	Model string
	Bytes units.Bytes
	Kind  string // KindTime or KindRate
	// Published and Modeled are in base units; Ratio = Modeled/Published.
	Published, Modeled, Ratio float64
	// Excluded is why the row is not in the figures ("" when it is).
	Excluded string
	// Derived is the row's scenario in the mode (nil for excluded rows).
	Derived *Derived
	// Notes are choices made for this row beyond the scenario (a size the
	// row does not state, a 0-byte message).
	Notes []string
}

// Error is the absolute relative error |modeled − published| / published.
func (r Result) Error() float64 { return math.Abs(r.Ratio - 1) }

// Included reports whether the row counts in the figures.
func (r Result) Included() bool { return r.Excluded == "" && r.Ratio > 0 }

// largeSize is the message size of a row that says "large", "sweep",
// "bulk" or "default" for a bandwidth: 64 MiB, past every path's fixed
// costs.
const largeSize = 64 << 20

// NCCLBaseLatency is NCCL's fixed latency of a collective with the LL
// protocol on a ring (src/graph/tuning.cc, baseLatencies: Ring LL 6.6 µs):
// launching the kernel and its bookkeeping, on top of the data path.
const NCCLBaseLatency units.Seconds = 6.6e-6

// paths maps the table's path names to the model's.
var paths = map[string]string{
	"gdr": "gdr", "rdma_host_staged": "rdma", "tcp_host_staged": "tcp", "rdma_host": "host-rdma", "tcp_host": "host-tcp",
	"gpudirect_tcpxo": "devmem", "devmem_tcp": "devmem",
}

// ModelPath is the model path that a table path name is modeled with
// ("gdr" for gdr, "rdma" for rdma_host_staged, ...); "" for rows of no
// path (local copies, registration).
func ModelPath(tablePath string) string { return paths[tablePath] }

// Run models every row in the full mode.
func Run(rows []Row) []Result { return RunMode(rows, Full) }

// RunMode models every row in a mode.
func RunMode(rows []Row, mode Mode) []Result {
	out, _ := RunModeContext(context.Background(), rows, mode)
	return out
}

// RunModeContext models every row in a mode, asking ctx before each row:
// a table of many rows ends at an interrupt with ctx's error.
func RunModeContext(ctx context.Context, rows []Row, mode Mode) ([]Result, error) {
	out := make([]Result, 0, len(rows))
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, modelRow(r, mode))
	}
	return out, nil
}

func modelRow(r Row, mode Mode) Result {
	res := Result{Row: r, Mode: mode}
	pub, kind, err := parseValue(r.Value, r.Unit)
	if err != nil {
		res.Excluded = err.Error()
		return res
	}
	res.Published, res.Kind = pub, kind
	if _, ok := QuantityKind(r.Quantity); !ok {
		res.Excluded = fmt.Sprintf("quantity %q is not one the model computes (a time: latency…, …_time; a rate: bandwidth…, busbw…, algbw…)", r.Quantity)
		return res
	}
	if why := excluded(r); why != "" {
		res.Excluded = why
		return res
	}
	d, err := Derive(r, mode)
	if err != nil {
		res.Excluded = "no scenario: " + err.Error()
		return res
	}
	res.Derived = d
	s := d.Scenario
	n, note := size(r, kind)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	if n == 0 {
		n = 1
		res.Notes = append(res.Notes, "a 0-byte message is modeled as 1 B, the model's smallest")
	}
	res.Bytes = units.Bytes(n)
	var v float64
	switch {
	case strings.HasPrefix(r.Path, "cudamemcpy") || strings.HasPrefix(r.Path, "gdrcopy"):
		v, res.Model = copyFigure(s, r, units.Bytes(n))
	case r.Path == "registration":
		rt := s.MustRoute("gdr")
		v, res.Model = float64(rt.Evaluate(units.Bytes(n)).Registration), "gdr registration of a GPU buffer of "+units.Bytes(n).Human()
	default:
		p, ok := paths[r.Path]
		if !ok {
			res.Excluded = fmt.Sprintf("path %q is not one the model describes", r.Path)
			return res
		}
		rt := s.MustRoute(p)
		if !rt.Feasible {
			res.Excluded = "the derived scenario makes " + p + " infeasible: " + rt.Reason
			return res
		}
		if isCollective(r) {
			v2, what, notes, err := collectiveFigure(s, r, p, units.Bytes(n))
			if err != nil {
				res.Excluded = "no collective: " + err.Error()
				return res
			}
			v, res.Model = v2, what+" at "+units.Bytes(n).Human()
			res.Notes = append(res.Notes, notes...)
			break
		}
		e := rt.Evaluate(units.Bytes(n))
		switch q := r.Quantity; {
		case strings.Contains(r.Software, "ib_read_lat") && strings.HasPrefix(q, "latency"):
			// perftest's read latency is the whole operation: a small request
			// goes out (inline, from host memory), the responder's NIC reads
			// the data and sends it back with no CPU of its own, so the
			// second leg has no post and the first no poll.
			// The responder's NIC reads the data from memory: never inline.
			req := s.MustRoute("host-rdma").Evaluate(1)
			ds := s.Clone()
			ds.NIC.InlineSize = 0
			data := ds.MustRoute(p).Evaluate(units.Bytes(n))
			v = float64(req.Latency + data.Latency - s.NIC.PostCost - s.NIC.PollCost)
			res.Model = p + " RDMA read: an inline 1 B request one way, the data back (no post, no poll in between)"
		case q == "latency_oneway":
			v, res.Model = float64(e.Latency), p+" one-way latency"
		case q == "latency_rtt":
			v, res.Model = 2*float64(e.Latency), p+" round trip (2 × one way)"
		case q == "collective_time":
			v, res.Model = float64(e.Latency+NCCLBaseLatency), p+" one-way latency + NCCL's base latency 6.6 µs (a 2-rank broadcast is one transfer)"
		case kind == KindTime:
			res.Excluded = fmt.Sprintf("quantity %q: on a path between nodes the model computes latency_oneway, latency_rtt and collective_time", q)
			return res
		case strings.Contains(strings.ToLower(r.Software), "ping-pong"):
			// A ping-pong bandwidth is one message at a time: n over its
			// one-way latency (pipelined in chunks where the software
			// overlaps the stages).
			lat := e.Pipelined
			if strings.Contains(r.Software, "no overlap") {
				lat = e.Latency
			}
			v, res.Model = float64(n)/float64(lat), p+" ping-pong bandwidth: n / one-way latency"
		default: // every other bandwidth quantity: a window of messages in flight
			v, res.Model = float64(e.Bandwidth), p+" streaming bandwidth"
		}
		res.Model += " at " + units.Bytes(n).Human()
	}
	res.Modeled = v
	if v > 0 && !math.IsInf(v, 0) {
		res.Ratio = v / pub
	} else {
		res.Excluded = "the model gives no finite value"
	}
	return res
}

// copyFigure is a local copy row (a cudaMemcpy from pinned or pageable
// memory, a gdrcopy load or store through BAR1): the peak rate, the fixed
// cost, one copy's time, or one copy's n / T(n) (as bandwidthTest,
// cudaEvent timing and gdrcopy's copybw report it).
func copyFigure(s *model.Scenario, r Row, n units.Bytes) (float64, string) {
	switch r.Quantity {
	case "latency_overhead":
		return float64(s.GPU.CopyLatency), "gpu.copy_latency (one synchronous copy's fixed cost)"
	case "bandwidth_uni_peak", "bandwidth_peak":
		rate := s.CopyRate()
		what := "pinned copy rate"
		if strings.HasSuffix(r.Path, "h2d") {
			rate, what = s.H2DRate(), "pinned host→device copy rate"
		} else if strings.HasSuffix(r.Path, "d2h") {
			rate, what = s.D2HRate(), "pinned device→host copy rate"
		}
		return float64(rate), what
	}
	c, err := model.LookupLocalCopy(localCopy(r.Path))
	if err != nil {
		panic(err) // localCopy names local copies only
	}
	t := c.Time(s, n)
	if r.Quantity == "copy_time" {
		return float64(t), fmt.Sprintf("one %s of %s: %s", c.Title, n.Human(), c.What(s))
	}
	return float64(n) / float64(t), fmt.Sprintf("n / T(n), one %s of %s: %s", c.Title, n.Human(), c.What(s))
}

// localCopy is the model's local copy for a table path.
func localCopy(path string) string {
	dir := "h2d"
	if strings.HasSuffix(path, "d2h") {
		dir = "d2h"
	}
	switch {
	case strings.HasPrefix(path, "gdrcopy"):
		return map[string]string{"h2d": "bar-write", "d2h": "bar-read"}[dir]
	case strings.HasPrefix(path, "cudamemcpy_pageable"):
		return "pageable-" + dir
	}
	return "pinned-" + dir
}

// size is the row's message size: the number it states, else a documented
// default for its kind of quantity.
func size(r Row, kind string) (int64, string) {
	t := strings.TrimSpace(r.MsgBytes)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && n >= 0 {
		return n, ""
	}
	if strings.HasPrefix(t, "qperf default") {
		// qperf's man page: the message size defaults to 1 byte for latency
		// tests and 64 KiB for bandwidth tests.
		if kind == KindTime {
			return 1, "qperf's default message size for latency tests: 1 B"
		}
		return 64 << 10, "qperf's default message size for bandwidth tests: 64 KiB"
	}
	if kind == KindRate {
		return largeSize, fmt.Sprintf("size %q: modeled at %s, past every fixed cost", t, units.Bytes(largeSize).Human())
	}
	return 8, fmt.Sprintf("size %q: modeled at 8 B, a small message", t)
}

// Figures are the error statistics of a group of rows.
type Figures struct {
	Rows   int     // rows in the figures
	Median float64 // median absolute relative error
	Worst  float64 // largest absolute relative error
	// WorstID is the row of the worst error, WorstRatio its modeled/published.
	WorstID    string
	WorstRatio float64
	Excluded   int // rows of the group left out
}

// Summary is the figures over all rows, per source and per path.
type Summary struct {
	All       Figures
	BySource  map[string]Figures
	ByPath    map[string]Figures
	Sources   []string // sorted keys of BySource
	PathNames []string // sorted keys of ByPath
}

// Summarize computes the figures of results.
func Summarize(results []Result) Summary {
	s := Summary{BySource: map[string]Figures{}, ByPath: map[string]Figures{}}
	var all []Result
	src, pth := map[string][]Result{}, map[string][]Result{}
	ex := func(m map[string]Figures, k string) {
		f := m[k]
		f.Excluded++
		m[k] = f
	}
	for _, r := range results {
		k, p := r.Row.SourceID(), r.Row.Path
		if !r.Included() {
			ex(s.BySource, k)
			ex(s.ByPath, p)
			s.All.Excluded++
			continue
		}
		all = append(all, r)
		src[k] = append(src[k], r)
		pth[p] = append(pth[p], r)
	}
	s.All = figures(all, s.All.Excluded)
	for k, rs := range src {
		s.BySource[k] = figures(rs, s.BySource[k].Excluded)
	}
	for k, rs := range pth {
		s.ByPath[k] = figures(rs, s.ByPath[k].Excluded)
	}
	for k := range s.BySource {
		s.Sources = append(s.Sources, k)
	}
	for k := range s.ByPath {
		s.PathNames = append(s.PathNames, k)
	}
	sort.Strings(s.Sources)
	sort.Strings(s.PathNames)
	return s
}

func figures(rs []Result, excluded int) Figures {
	f := Figures{Rows: len(rs), Excluded: excluded}
	if len(rs) == 0 {
		return f
	}
	errs := make([]float64, len(rs))
	for i, r := range rs {
		errs[i] = r.Error()
		if errs[i] > f.Worst || f.WorstID == "" {
			f.Worst, f.WorstID, f.WorstRatio = errs[i], r.Row.ID, r.Ratio
		}
	}
	sort.Float64s(errs)
	if m := len(errs); m%2 == 1 {
		f.Median = errs[m/2]
	} else {
		f.Median = (errs[m/2-1] + errs[m/2]) / 2
	}
	return f
}
