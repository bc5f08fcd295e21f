package doctor

import (
	"encoding/json"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/topo"
)

// The keys of a priced case and of this host are typed scenario overrides:
// what a check read (a class, a link as trained, an MTU) goes through
// calib.Overrides, the one path from facts to a scenario, never through
// "key=value" text; JSON writes them as --set writes them.

// caseSource is the source of a fact a case supposes.
const caseSource = "the case priced"

// is is a fact of a case.
func is[T comparable](v T) calib.Fact[T] { return calib.Found(v, caseSource) }

// caseKeys are the keys of a case with facts f, then the overrides more (a
// capability the case supposes, as nic.header_split).
func caseKeys(f calib.Facts, more ...model.Override) []model.Override {
	out := calib.Overrides(f)
	for _, o := range more {
		if o.Source == "" {
			o.Source = caseSource
		}
		out = append(out, o)
	}
	return out
}

// class is a class of the PCI tree as the model names it.
func class(c topo.Class) calib.Fact[model.Class] { return is(model.Class(c)) }

// link is a PCIe link of gen and width.
func link(gen, width int) calib.Fact[model.Link] { return is(model.Link{Gen: gen, Lanes: width}) }

// texts are overrides as --set writes them ("topology.gpu_nic=PIX").
func texts(ovs []model.Override) []string {
	out := make([]string, 0, len(ovs))
	for _, o := range ovs {
		v, err := o.Text()
		if err != nil {
			v = "(" + err.Error() + ")"
		}
		out = append(out, o.Key+"="+v)
	}
	return out
}

type caseJSON struct {
	Path string   `json:"path"`
	Set  []string `json:"set,omitempty"`
}

// MarshalJSON writes a case as {"path": ..., "set": ["key=value", ...]}.
func (c Case) MarshalJSON() ([]byte, error) {
	return json.Marshal(caseJSON{Path: c.Path, Set: texts(c.Set)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Case) UnmarshalJSON(b []byte) error {
	var j caseJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	ovs, err := model.ParseSets(j.Set, caseSource)
	if err != nil {
		return err
	}
	*c = Case{Path: j.Path, Set: ovs}
	return nil
}
