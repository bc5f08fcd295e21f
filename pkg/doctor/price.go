package doctor

// This file is the only one in the package that evaluates the model: the
// scenario with this host's keys and a case's applied (typed overrides,
// Scenario.Apply) and a path at a message size.

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// priceSizes are the sizes every price is given at: a flag, a chunk, a
// tensor.
var priceSizes = []int64{8, 1 << 20, 1 << 30}

// refSize is the size the price's sentence speaks of.
const refSize = 1 << 20

// Pricer prices findings with the model on one scenario.
type Pricer struct {
	name string
	base *model.Scenario
	// fixed are keys the person set (--set): this host's facts do not
	// override them.
	fixed map[string]bool
}

// Fix marks keys (as in --set key=value) that this host's keys must not
// override: what a person sets explicitly stands.
func (p *Pricer) Fix(keys ...string) {
	if p.fixed == nil {
		p.fixed = map[string]bool{}
	}
	for _, k := range keys {
		k, _, _ = strings.Cut(k, "=")
		p.fixed[strings.TrimSpace(k)] = true
	}
}

// hostKeys drops the host keys the person fixed.
func (p *Pricer) hostKeys(host []model.Override) []model.Override {
	var out []model.Override
	for _, o := range host {
		if !p.fixed[o.Key] {
			out = append(out, o)
		}
	}
	return out
}

// NewPricer prices on s (resolved from a preset or a file, with --set
// overrides already applied); name says where it came from ("preset
// default"). A nil s prices nothing.
func NewPricer(s *model.Scenario, name string) *Pricer {
	if s == nil {
		return nil
	}
	if name == "" {
		name = s.Name
	}
	return &Pricer{name: name, base: s.Clone()}
}

// Name says which scenario prices.
func (p *Pricer) Name() string { return p.name }

// scenario returns the base with the host's keys and then sets applied,
// all at once (so that a key and those it implies resolve together).
func (p *Pricer) scenario(host, sets []model.Override) (*model.Scenario, error) {
	s := p.base.Clone()
	// A host key the model refuses (a link it does not know) is left out:
	// the scenario's own value stands.
	var kept []model.Override
	for _, o := range host {
		if try := s.Clone(); try.Apply(append(kept, o)...) == nil {
			kept = append(kept, o)
		}
	}
	if err := s.Apply(append(kept, sets...)...); err != nil {
		return nil, err
	}
	return s, nil
}

type evaluated struct {
	title string
	res   []model.Result // at priceSizes
	ref   model.Result   // at refSize
}

// refIndex picks the size the sentence speaks of: 1 MiB, unless the two
// cases differ only at another size.
func refIndex(before, after *evaluated) int {
	mib := 1
	if !near(float64(before.res[mib].Pipelined), float64(after.res[mib].Pipelined)) {
		return mib
	}
	for i := range priceSizes {
		if !near(float64(before.res[i].Pipelined), float64(after.res[i].Pipelined)) {
			return i
		}
	}
	return mib
}

func (p *Pricer) evaluate(c Case, host []model.Override) (*evaluated, error) {
	s, err := p.scenario(host, c.Set)
	if err != nil {
		return nil, err
	}
	path, err := model.LookupPath(c.Path)
	if err != nil {
		return nil, err
	}
	r := path.Route(s)
	if !r.Feasible {
		return nil, fmt.Errorf("%s: %s", c.Path, strings.TrimPrefix(r.Reason, "infeasible: "))
	}
	ev := &evaluated{title: path.Title}
	for _, n := range priceSizes {
		ev.res = append(ev.res, r.Evaluate(units.Bytes(n)))
	}
	ev.ref = r.Evaluate(units.Bytes(refSize))
	return ev, nil
}

// Price evaluates both cases of c at 8 B, 1 MiB and 1 GiB. host are this
// machine's keys, applied to the scenario with each case's own.
func (p *Pricer) Price(c Cost, host []model.Override) *Price {
	pr := &Price{Before: c.Before, After: c.After}
	if c.Unpriced != "" {
		pr.Note = c.Unpriced
		pr.Summary = c.Lead + ": not priced — " + c.Unpriced
		return pr
	}
	before, err := p.evaluate(c.Before, host)
	if err != nil {
		pr.Note = "not priced: " + err.Error()
		pr.Summary = c.Lead + ": " + pr.Note
		return pr
	}
	after, err := p.evaluate(c.After, host)
	if err != nil {
		pr.Note = "not priced: " + err.Error()
		pr.Summary = c.Lead + ": " + pr.Note
		return pr
	}
	for i, n := range priceSizes {
		b, a := before.res[i], after.res[i]
		pr.Points = append(pr.Points, PricePoint{Bytes: n,
			LatencyBefore: float64(b.Pipelined), LatencyAfter: float64(a.Pipelined),
			BandwidthBefore: float64(b.Bandwidth), BandwidthAfter: float64(a.Bandwidth)})
	}
	pr.CopiesBefore, pr.CopiesAfter = before.ref.Copies, after.ref.Copies
	pr.DDRBefore, pr.DDRAfter = before.ref.DDRBytes, after.ref.DDRBytes
	pr.Summary = c.Lead + ": " + sentence(c, before, after)
	return pr
}

// sentence says what the price is: "the rdma path (RDMA, host-staged)
// moves 1 MiB in 61.2 µs instead of 25.3 µs (gdr) and streams 1 GiB at
// 21.8 GB/s instead of 24.4 GB/s, with 2 extra copies".
func sentence(c Cost, before, after *evaluated) string {
	b, a := before.ref, after.ref
	ri := refIndex(before, after)
	size := units.Bytes(priceSizes[ri]).Human()
	bl, al := units.Seconds(before.res[ri].Pipelined), units.Seconds(after.res[ri].Pipelined)
	last := len(priceSizes) - 1
	bb, ab := before.res[last].Bandwidth, after.res[last].Bandwidth
	var sb strings.Builder
	if c.Before.Path == c.After.Path {
		fmt.Fprintf(&sb, "the %s path moves %s in %s instead of %s", c.After.Path, size, al.Human(), bl.Human())
	} else {
		fmt.Fprintf(&sb, "the %s path (%s) moves %s in %s instead of %s on %s", c.After.Path, after.title, size, al.Human(), bl.Human(), c.Before.Path)
	}
	if near(float64(ab), float64(bb)) {
		fmt.Fprintf(&sb, " and streams 1 GiB at the same %s", ab.Human())
	} else {
		fmt.Fprintf(&sb, " and streams 1 GiB at %s instead of %s", ab.Human(), bb.Human())
	}
	var extra []string
	if d := a.Copies - b.Copies; d != 0 {
		extra = append(extra, plural(d, "extra copy", "extra copies", "fewer copy", "fewer copies"))
	}
	if !near(a.DDRBytes, b.DDRBytes) {
		extra = append(extra, fmt.Sprintf("%s of DDR traffic per MiB instead of %s", units.Bytes(a.DDRBytes).Human(), units.Bytes(b.DDRBytes).Human()))
	}
	if len(extra) > 0 {
		sb.WriteString(", with " + strings.Join(extra, " and "))
	}
	if near(float64(al), float64(bl)) && near(float64(ab), float64(bb)) && len(extra) == 0 {
		return fmt.Sprintf("no difference in the model (the %s path moves %s in %s either way)", c.After.Path, size, al.Human())
	}
	return sb.String()
}

func plural(d int, one, many, fewOne, fewMany string) string {
	switch {
	case d == 1:
		return "1 " + one
	case d > 1:
		return fmt.Sprintf("%d %s", d, many)
	case d == -1:
		return "1 " + fewOne
	}
	return fmt.Sprintf("%d %s", -d, fewMany)
}

// near reports whether two figures print alike (within 0.5 %).
func near(x, y float64) bool {
	if x == y {
		return true
	}
	d := x - y
	if d < 0 {
		d = -d
	}
	m := max(x, y, -x, -y)
	return d <= 0.005*m
}

// formatSeconds and formatRate print a price point as the model prints its
// units, for the text report.
func formatSeconds(v float64) string { return units.Seconds(v).Human() }
func formatRate(v float64) string    { return units.Rate(v).Human() }
func formatBytes(v int64) string     { return units.Bytes(v).Human() }
