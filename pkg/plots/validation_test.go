package plots

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidationFigure(t *testing.T) {
	pts := []ValidationPoint{
		{ID: "A-1", Path: "gdr", Group: "gdr", Time: true, Published: 95.7e-6, Modeled: 87e-6},
		{ID: "A-2", Path: "host-rdma", Group: "rdma_host", Time: true, Published: 0.83e-6, Modeled: 0.67e-6},
		{ID: "A-3", Path: "gdr", Group: "gdr", Published: 12e9, Modeled: 12.4e9},
		{ID: "A-4", Group: "cudamemcpy_pinned_h2d", Published: 11e9, Modeled: 11.4e9},
	}
	f, err := Validation(pts, "published: test")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.panels) != 2 || f.Data.Len() != 4 || !strings.Contains(f.Caption, "±25 %") {
		t.Errorf("%d panels, %d rows, caption %q", len(f.panels), f.Data.Len(), f.Caption)
	}
	var labels []string
	for _, e := range f.legend {
		labels = append(labels, e.label)
	}
	if got := strings.Join(labels, ","); got != "model = published,±25 %,gdr,rdma_host,cudamemcpy_pinned_h2d" {
		t.Errorf("legend %s", got)
	}
	if _, err := SVG(f, f.Width, f.Height); err != nil {
		t.Error(err)
	}
	// One kind only: one panel.
	if f, err := Validation(pts[:2], ""); err != nil || len(f.panels) != 1 {
		t.Errorf("times only: %v, %d panels", err, len(f.panels))
	}
	for _, bad := range [][]ValidationPoint{nil, {{ID: "B", Published: 0, Modeled: 1}}, {{ID: "C", Published: 1, Modeled: math.Inf(1)}}, {{ID: "D", Published: math.NaN(), Modeled: 1}}} {
		if _, err := Validation(bad, ""); !errors.Is(err, ErrInput) {
			t.Errorf("%v accepted (%v)", bad, err)
		}
	}
}
