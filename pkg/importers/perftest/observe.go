package perftest

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "perftest"

// Detect tells whether b is perftest output: a test title line or a
// result table header.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#bytes") && (strings.Contains(l, "BW peak") || strings.Contains(l, "t_min") || strings.Contains(l, "t_typical")) {
			return true
		}
		if m := titleRe.FindStringSubmatch(l); m != nil && !strings.Contains(l, ":") &&
			(strings.HasPrefix(m[1], "RDMA_") || strings.HasPrefix(m[1], "Send") || strings.HasPrefix(m[1], "Atomic")) {
			return true
		}
	}
	return false
}

// programs names the perftest binary of a verb and kind.
var programs = map[string]string{
	"RDMA_Write bandwidth": "ib_write_bw", "RDMA_Read bandwidth": "ib_read_bw", "Send bandwidth": "ib_send_bw", "Atomic bandwidth": "ib_atomic_bw",
	"RDMA_Write latency": "ib_write_lat", "RDMA_Read latency": "ib_read_lat", "Send latency": "ib_send_lat", "Atomic latency": "ib_atomic_lat",
}

// Observations converts a Report: one record per table row. Bandwidth
// rows give BW average as the rate and BW peak as the peak; latency rows
// give t_typical (perftest's median) as the time. Runs on GPU memory
// (--use_cuda, --use_rocm) measure the gdr path, the others host-rdma.
// ib_read_lat times a whole RDMA read, a round trip; the write and send
// latency tests print half a ping-pong, one way (Extra "round_trip" says
// which).
func (r *Report) Observations() *obs.Output {
	out := &obs.Output{Tool: Tool, Test: r.Test}
	prog := programs[r.Verb+" "+string(r.Kind)]
	if prog == "" {
		prog = "perftest"
		if r.Kind != "" {
			prog += " " + string(r.Kind)
		}
	}
	if out.Test == "" {
		out.Test = prog
	}
	path := "host-rdma"
	hw := &out.Hardware
	if r.GPU != nil {
		path = "gdr"
		hw.MemoryGPU = true
		if r.GPU.Name != "" {
			hw.GPUs = []string{r.GPU.Name}
		}
	}
	if r.Device != "" {
		ll := r.LinkType
		if ll == "Ethernet" {
			ll = "RoCE" // perftest runs verbs: an Ethernet link layer is RoCE
		}
		hw.NICs = []obs.NIC{{Name: r.Device, LinkLayer: ll, MTU: r.MTU}}
	}
	hw.Inline = r.Inline
	variant := ""
	if r.Bidirectional {
		variant = "bidirectional"
	}
	if r.QPs > 1 {
		variant = strings.TrimSpace(variant + fmt.Sprintf(" %d QPs", r.QPs))
	}
	for _, row := range r.Bandwidth {
		if row.AvgBps <= 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("line %d: BW average is 0: no record", row.Line))
			continue
		}
		rec := obs.Record{Line: row.Line, Test: prog, Op: r.Verb, Variant: variant, Metric: obs.Bandwidth, Bytes: row.Bytes,
			Iterations: row.Iterations, Rate: row.AvgBps, PeakRate: row.PeakBps, MsgRate: row.MsgRate, Path: path, Target: r.Device,
			Fields: row.Fields}
		rec.Time, rec.Central = float64(row.Bytes)/row.AvgBps, "mean"
		out.Add(rec)
	}
	for _, row := range r.Latency {
		t, central := row.Typical, "median (t_typical)"
		if t <= 0 {
			t, central = row.Avg, "mean (t_avg)"
		}
		if t <= 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("line %d: no typical or average time: no record", row.Line))
			continue
		}
		rec := obs.Record{Line: row.Line, Test: prog, Op: r.Verb, Variant: variant, Metric: obs.Latency, Bytes: row.Bytes,
			Iterations: row.Iterations, Time: t, Central: central, Min: row.Min, Max: row.Max, P50: row.Typical, P99: row.P99,
			P999: row.P999, Stdev: row.Stdev, Path: path, Target: r.Device, Fields: row.Fields}
		if row.Avg > 0 {
			rec.Extra = map[string]float64{"avg_s": row.Avg}
		}
		if r.Verb == "RDMA_Read" {
			rec.Extra = setExtra(rec.Extra, "round_trip", 1)
		}
		out.Add(rec)
	}
	for _, e := range r.Errors {
		out.Failures = append(out.Failures, obs.Problem{Line: e.Line, Text: e.Text, Reason: "perftest reported an error"})
	}
	for _, s := range r.Skipped {
		out.Problems = append(out.Problems, obs.Problem{Line: s.Line, Text: s.Text, Reason: s.Reason})
	}
	if r.Duplicates > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d row(s) repeated word for word (server and client output mixed) were read once", r.Duplicates))
	}
	if r.Rows() == 0 && len(r.Errors) == 0 {
		out.Notes = append(out.Notes, "no result table (the server side of a latency test prints none)")
	}
	return out
}

func setExtra(m map[string]float64, k string, v float64) map[string]float64 {
	if m == nil {
		m = map[string]float64{}
	}
	m[k] = v
	return m
}

// ParseObservations is ParseBytes followed by Observations.
func ParseObservations(b []byte) (*obs.Output, error) {
	r, err := ParseBytes(b)
	if err != nil {
		return nil, err
	}
	return r.Observations(), nil
}
