package measured

import (
	"fmt"
	"path/filepath"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
)

// NCCLTestsRun is the committed run of every nccl-tests output of the
// fixtures imported (scripts/example-nccl-tests.sh), relative to the
// repository root.
const NCCLTestsRun = "reports/examples/nccl-tests/run"

// NCCLTestsAgainstModel reads an imported run (dir, relative to root) and
// tables every nccl-tests busbw series against NCCL's cost model of its
// cluster, on base with the hardware each output names — the comparison
// of gpupath report --data (report.FromRuns): the collective modeled, the
// median error over the sizes of 16 MiB or more, and the largest size
// measured and modeled; a series that cannot be modeled says why.
func NCCLTestsAgainstModel(root, dir string, base *model.Scenario) (string, error) {
	rd, err := record.ReadRun(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return "", err
	}
	d, err := report.FromRuns([]*record.RunData{rd}, base)
	if err != nil {
		return "", err
	}
	t := &nb.Table{Caption: fmt.Sprintf("nccl-tests against NCCL's cost model (%s, on %s with each output's hardware)", dir, base.Name),
		Head:  []string{"output", "series", "collective", "path", "median error ≥ " + units.Bytes(16<<20).Human(), "largest size", "measured busbw", "modeled busbw", "NCCL's choice"},
		Right: []bool{false, false, false, false, true, true, true, true, false}}
	for _, im := range d.Imported {
		for _, f := range im.Files {
			if f.Model == nil {
				continue
			}
			for _, g := range f.Model.Groups {
				for _, v := range g.Verdicts {
					c := v.Collective
					if c == nil {
						continue
					}
					if c.None != "" {
						t.Add(f.File, v.Series.Variant, "not compared: "+c.None, "", "", "", "", "", "")
						continue
					}
					last := c.Points[len(c.Points)-1]
					med := "—"
					if c.Large > 0 {
						med = units.Percent(c.MedianLarge)
					}
					t.Add(f.File, v.Series.Variant, fmt.Sprintf("%s %d×%d", c.Spec.Op, c.Spec.Nodes, c.Spec.GPUsPerNode), last.Path, med,
						last.Bytes.Human(), last.Measured.Human(), last.Modeled.Human(), last.Algo+"/"+last.Proto)
				}
			}
		}
	}
	if len(t.Rows) == 0 {
		return "", fmt.Errorf("%s: no nccl-tests busbw series", dir)
	}
	return t.HTML(), nil
}
