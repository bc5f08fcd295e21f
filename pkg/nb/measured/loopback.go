package measured

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
)

// loopbackSeries are a run's TCP measurements over loopback as plots
// series: ping-pong half round trips (with their CPU time) and streaming
// goodput (for writes of each size), on the given path. They are the
// run's curves as the report draws them (report.FromRun); a run whose
// results hold no record has none.
func loopbackSeries(rd *record.RunData, path string) (pingpong, stream plots.Measured) {
	src := stamp(rd.Manifest.Start) + ", over loopback"
	on := " on " + rd.Manifest.Host.Name() + ", " + dirName(rd.Dir) // two runs of one host stay apart
	pingpong = plots.Measured{Label: "ping-pong" + on, Path: path, Source: src}
	stream = plots.Measured{Label: "stream" + on, Path: path, Source: src}
	m, _ := report.FromRun(rd)
	for _, s := range m.Series {
		if s.Probe != "tcp" || s.Target != "loopback" {
			continue
		}
		for _, p := range s.Points {
			switch s.Variant {
			case "pingpong":
				pingpong.Points = append(pingpong.Points, plots.Point{Bytes: float64(p.Bytes), Seconds: float64(p.Median), CPU: float64(p.CPU)})
			case "stream":
				stream.Points = append(stream.Points, plots.Point{Bytes: float64(p.Bytes), Rate: float64(p.Rate)})
			}
		}
	}
	return pingpong, stream
}

// LoopbackInput is what a loopback figure draws: the model's host-tcp
// path on s (which should have nic.kind loopback) and every run's TCP
// measurements over loopback, ping-pong (stream false) or streaming. The
// committed example draws as host-tcp; runs made here in grey, so that
// they are not taken for it.
func LoopbackInput(s *model.Scenario, runs *Runs, stream bool) plots.Input {
	in := plots.Input{Scenario: s, Paths: []string{"host-tcp"}}
	for i, rd := range runs.All {
		path := "host-tcp"
		if i > 0 {
			path = ""
		}
		pp, st := loopbackSeries(rd, path)
		if stream {
			pp = st
		}
		if len(pp.Points) > 0 {
			in.Measured = append(in.Measured, pp)
		}
	}
	return in
}

// LoopbackLatency is plots.Latency of LoopbackInput (ping-pong), titled so
// that nobody takes the loopback device for a NIC.
func LoopbackLatency(s *model.Scenario, runs *Runs) (*plots.Figure, error) {
	f, err := plots.Latency(LoopbackInput(s, runs, false))
	if err != nil {
		return nil, err
	}
	f.Title = "TCP over loopback (no NIC, no wire): one-way latency"
	return f, nil
}

// LoopbackBandwidth is plots.Bandwidth of LoopbackInput (streaming
// goodput), titled as loopback.
func LoopbackBandwidth(s *model.Scenario, runs *Runs) (*plots.Figure, error) {
	f, err := plots.Bandwidth(LoopbackInput(s, runs, true))
	if err != nil {
		return nil, err
	}
	f.Title = "TCP over loopback (no NIC, no wire): streaming bandwidth"
	return f, nil
}

// loopbackErrors compares the host-tcp model on s with a run's TCP over
// loopback: the one-way latency with the ping-pong medians, and the
// streaming bandwidth with the stream goodput (as the time to move each
// size, so that a negative error means the model is too fast in both).
// A comparison is nil where the run measured nothing.
func loopbackErrors(rd *record.RunData, s *model.Scenario) (lat, bw *fit.Comparison, err error) {
	r, err := s.Route("host-tcp")
	if err != nil {
		return nil, nil, err
	}
	if !r.Feasible {
		return nil, nil, fmt.Errorf("nb: host-tcp is infeasible on %s: %s", s.Name, r.Reason)
	}
	pp, st := loopbackSeries(rd, "host-tcp")
	var out [2]*fit.Comparison
	for i, m := range []plots.Measured{pp, st} {
		if len(m.Points) == 0 {
			continue
		}
		var bytes, pred, meas []float64
		for _, p := range m.Points {
			res := r.Evaluate(units.Bytes(p.Bytes))
			bytes = append(bytes, p.Bytes)
			if i == 0 {
				pred, meas = append(pred, float64(res.Latency)), append(meas, p.Seconds)
			} else {
				pred, meas = append(pred, p.Bytes/float64(res.Bandwidth)), append(meas, p.Bytes/p.Rate)
			}
		}
		c, err := fit.Compare(bytes, pred, meas)
		if err != nil {
			return nil, nil, err
		}
		out[i] = &c
	}
	return out[0], out[1], nil
}

// LoopbackErrors is an HTML table of how far each scenario's host-tcp
// model is from each run's loopback measurements: the median and worst
// error of the one-way latency (ping-pong) and of the streaming bandwidth.
// Each scenario should have nic.kind loopback.
func LoopbackErrors(runs *Runs, scenarios ...*model.Scenario) (string, error) {
	t := &nb.Table{Caption: "The host-tcp model against TCP over loopback (error = model − measured, in % of measured)",
		Head:  []string{"measured on", "model", "latency: median error", "worst (at size)", "bandwidth: median error", "worst (at size)"},
		Right: []bool{false, false, true, true, true, true}}
	for _, rd := range runs.All {
		for _, s := range scenarios {
			lat, bw, err := loopbackErrors(rd, s)
			if err != nil {
				return "", err
			}
			row := []string{rd.Manifest.Host.Name() + " (" + dirName(rd.Dir) + ")", s.Name}
			for _, c := range []*fit.Comparison{lat, bw} {
				if c == nil {
					row = append(row, "not measured", "")
					continue
				}
				row = append(row, trim(c.MedianAPE)+"%", signed(c.WorstPercent)+" ("+units.Bytes(c.WorstBytes).Human()+")")
			}
			t.Add(row...)
		}
	}
	return t.HTML(), nil
}

// LoopbackNote says in Markdown which of two host-tcp models (a preset and
// one with this host's measured values, say) is closer to a run's one-way
// latency over loopback, and by how much each misses.
func LoopbackNote(rd *record.RunData, a, b *model.Scenario) (string, error) {
	la, _, err := loopbackErrors(rd, a)
	if err != nil {
		return "", err
	}
	lb, _, err := loopbackErrors(rd, b)
	if err != nil {
		return "", err
	}
	if la == nil || lb == nil {
		return fmt.Sprintf("The run on `%s` has no TCP ping-pong over loopback to compare with.", rd.Manifest.Host.Name()), nil
	}
	miss := func(c *fit.Comparison) string {
		dir := "too slow"
		if c.WorstPercent < 0 {
			dir = "too fast"
		}
		return fmt.Sprintf("a median %s%% off, at worst %s at %s (%s there)", trim(c.MedianAPE), signed(c.WorstPercent), units.Bytes(c.WorstBytes).Human(), dir)
	}
	best := a
	if lb.MedianAPE < la.MedianAPE {
		best = b
	}
	return fmt.Sprintf("One-way latency over loopback on `%s`: the model with `%s` is %s; the model with `%s` is %s. Closer: `%s`. "+
		"This host's values are costs of single operations, each measured on its own (their sources are in the table of this host's values below); "+
		"the calibration notebook fits the loopback transfer as a whole instead.",
		rd.Manifest.Host.Name(), a.Name, miss(la), b.Name, miss(lb), best.Name), nil
}
