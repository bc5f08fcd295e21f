package measured

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// copyVariants are the copy probe's variants the copy figure draws, with
// their look: D2H blue, H2D vermillion; pinned filled, pageable outlined.
var copyVariants = []struct {
	variant, label string
	color          color.Color
	mark           plots.Mark
}{
	{"d2h-pinned", "D2H, pinned", plots.Blue, plots.Mark{Shape: plots.Circle, Filled: true}},
	{"h2d-pinned", "H2D, pinned", plots.Vermillion, plots.Mark{Shape: plots.Square, Filled: true}},
	{"d2h-pageable", "D2H, pageable", plots.Blue, plots.Mark{Shape: plots.Circle}},
	{"h2d-pageable", "H2D, pageable", plots.Vermillion, plots.Mark{Shape: plots.Square}},
}

// copyModel is the model's synchronous copy (the tcp path's stage A) on
// base with the run's GPU link: the copy latency and the rate the PCIe
// link gives, not the measured one.
func copyModel(base *model.Scenario, rd *record.RunData) (*model.Scenario, model.Stage, error) {
	ovs := []model.Override{{Key: "gpu.copy_rate", Value: units.Rate(0)}, {Key: "gpu.cached_copy_latency", Value: units.Seconds(0)},
		{Key: "gpu.cached_copy_rate", Value: units.Rate(0)}, {Key: "gpu.cached_copy_knee", Value: units.Bytes(0)}}
	f, _, err := calib.RunFacts(rd)
	if err != nil {
		return nil, model.Stage{}, err
	}
	ovs = append(ovs, calib.Overrides(calib.Facts{GPUPCIe: f.GPUPCIe})...)
	s := base.Clone()
	if err := s.Apply(ovs...); err != nil {
		return nil, model.Stage{}, err
	}
	r, err := s.Route("tcp")
	if err != nil {
		return nil, model.Stage{}, err
	}
	for _, st := range r.Stages {
		if st.Letter == "A" {
			return s, st, nil
		}
	}
	return nil, model.Stage{}, errors.New("nb: the tcp path has no stage A")
}

// CopyChart draws the CUDA copy bandwidth a run measured (synchronous
// cudaMemcpy, wall time, pinned and pageable, both directions) against
// size, over the model's copy stage on base with the run's PCIe link, and
// the link's raw rate and modeled copy rate as references.
func CopyChart(base *model.Scenario, rd *record.RunData) (*nb.Chart, error) {
	s, st, err := copyModel(base, rd)
	if err != nil {
		return nil, err
	}
	sp := nb.SizePanel{YLabel: "copy bandwidth (GB/s)", Scale: 1e9, LegendDown: 18}
	var lo, hi float64 = math.Inf(1), 0
	var gpu string
	for _, v := range copyVariants {
		se, ok := copySeries(rd, v.variant)
		if !ok {
			continue
		}
		gpu = se.Target
		cv := nb.Curve{Label: "measured: " + v.label, Color: v.color, Mark: &v.mark}
		for _, p := range se.Points {
			n := float64(p.Bytes)
			cv.X, cv.Y = append(cv.X, n), append(cv.Y, n/float64(p.Median))
			lo, hi = min(lo, n), max(hi, n)
		}
		sp.Curves = append(sp.Curves, cv)
	}
	if len(sp.Curves) == 0 {
		return nil, fmt.Errorf("nb: %s holds no CUDA copy (cuda probe: %s)", rd.Dir, probeOutcome(rd, "cuda"))
	}
	m := nb.Curve{Label: fmt.Sprintf("model: copy stage, %s + n / %s", st.Alpha.Human(), st.Rate().Human()), Color: plots.Black}
	for n := lo; n <= hi*1.0001; n *= math.Sqrt2 {
		m.X, m.Y = append(m.X, n), append(m.Y, n/float64(st.Time(units.Bytes(n))))
	}
	sp.Curves = append([]nb.Curve{m}, sp.Curves...)
	sp.Refs = []nb.RefLine{
		{Label: "PCIe " + linkWords(s.GPU.PCIe) + " raw: " + s.GPU.PCIe.RawRate().Human(), Y: float64(s.GPU.PCIe.RawRate()), Color: plots.Grey, Dashes: plots.Dotted},
	}
	return nb.SizeChart("CUDA copies between host and GPU: measured against the PCIe model",
		fmt.Sprintf("measured: synchronous cuMemcpy, wall time, %s of %s (%s) · modeled: stage A of scenario %s", gpu, rd.Manifest.Host.Name(), stamp(rd.Manifest.Start), s.Name),
		plots.DefaultHeight, sp)
}

func linkWords(l model.Link) string { return fmt.Sprintf("gen%d x%d", l.Gen, l.Lanes) }

func probeOutcome(rd *record.RunData, probe string) string {
	for _, p := range rd.Manifest.Probes {
		if p.Name == probe {
			return strings.TrimSpace(string(p.Status) + " " + p.Reason)
		}
	}
	return "not run"
}

// CopyNote says in Markdown what the copy figure shows: the largest
// pinned copies against the model's rate and the raw link, the pageable
// ones, and the fixed cost of a small copy against the model's.
func CopyNote(base *model.Scenario, rd *record.RunData) (string, error) {
	s, st, err := copyModel(base, rd)
	if err != nil {
		return "", err
	}
	last := func(variant string) (record.Point, bool) {
		se, ok := copySeries(rd, variant)
		if !ok {
			return record.Point{}, false
		}
		return se.Points[len(se.Points)-1], true
	}
	first := func(variant string) (record.Point, bool) {
		se, ok := copySeries(rd, variant)
		if !ok {
			return record.Point{}, false
		}
		return se.Points[0], true
	}
	mrate, raw := float64(st.Rate()), float64(s.GPU.PCIe.RawRate())
	var b strings.Builder
	fmt.Fprintf(&b, "The model's copy rate for PCIe %s is %s (%s raw, less encoding and packet overhead).", linkWords(s.GPU.PCIe),
		st.Rate().Human(), s.GPU.PCIe.RawRate().Human())
	for _, v := range []struct{ variant, words string }{{"d2h-pinned", "device to host"}, {"h2d-pinned", "host to device"}} {
		if p, ok := last(v.variant); ok {
			bw := float64(p.Bytes) / float64(p.Median)
			fmt.Fprintf(&b, " Pinned %s at %s: %s, %s of the model's rate and %s of the raw link.", v.words, p.Bytes.Human(),
				units.Rate(bw).Human(), share(bw/mrate), share(bw/raw))
		}
	}
	var pg []string
	for _, v := range []struct{ variant, words string }{{"d2h-pageable", "device to host"}, {"h2d-pageable", "host to device"}} {
		if p, ok := last(v.variant); ok {
			pg = append(pg, fmt.Sprintf("%s %s", v.words, units.Rate(float64(p.Bytes)/float64(p.Median)).Human()))
		}
	}
	if len(pg) > 0 {
		fmt.Fprintf(&b, " Pageable copies, staged by the driver through its own pinned buffers, reach only %s at the largest size.", strings.Join(pg, " and "))
	}
	var small []string
	for _, v := range []struct{ variant, words string }{{"d2h-pinned", "D2H"}, {"h2d-pinned", "H2D"}} {
		if p, ok := first(v.variant); ok {
			small = append(small, fmt.Sprintf("%s %s", v.words, p.Median.Human()))
		}
	}
	if len(small) > 0 {
		fmt.Fprintf(&b, " A copy of a few bytes measures the fixed cost: %s, where the %s preset assumes %s.", strings.Join(small, ", "), "`"+base.Name+"`", st.Alpha.Human())
	}
	return b.String(), nil
}
