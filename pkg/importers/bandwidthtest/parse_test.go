package bandwidthtest

import (
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the shared bandwidthTest outputs.
var fx = importtest.Format{Tool: "bandwidthTest", Detect: Detect, Parse: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

func TestHandRead(t *testing.T) {
	// Old MB/s: 9254.7 × 1 024 000 B/s.
	o := fx.Output(t, "pkb-quick-mode-2xK80.txt")
	if len(o.Records) != 3 || o.Records[0].Op != "h2d" || !near(o.Records[0].Rate, 9254.7*1024000) || o.Records[0].Variant != "pinned" ||
		o.Records[0].Target != "2 devices together" || o.Records[0].Line != 11 || len(o.Hardware.GPUs) != 2 {
		t.Errorf("%+v", o.Records[0])
	}
	// New GB/s = 1e9 B/s.
	o = fx.Output(t, "stelline-quick-mode-GBs-rtx6000ada-device0.txt")
	if len(o.Records) != 3 || !near(o.Records[1].Rate, 26.3e9) || o.Records[1].Op != "d2h" || o.Records[1].Bytes != 32000000 {
		t.Errorf("%+v", o.Records[1])
	}
	// CSV lines.
	o = fx.Output(t, "pkb-quick-mode-csv-K80.txt")
	if len(o.Records) != 3 || !near(o.Records[2].Rate, 155418.8*1024000) || o.Records[2].Op != "d2d" || o.Records[0].Variant != "pinned" {
		t.Errorf("%+v", o.Records)
	}
	o = fx.Output(t, "superbench-bandwidthTest-h2d-shmoo-csv-v100.txt")
	if len(o.Records) != 81 || o.Records[0].Bytes != 1000 || !near(o.Records[0].Rate, 0.4e9) {
		t.Errorf("%d %+v", len(o.Records), o.Records[0])
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }
