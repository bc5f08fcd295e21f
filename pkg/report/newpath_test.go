package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
)

// TestNewPathIsOneRegistration: a path is one registration in pkg/model
// (here, a made-up GPU path that moves the payload through one NIC DMA read
// and the wire); the report draws it in every inter-node figure in its own
// style and lists it in its tables, and the notebook helpers compare it,
// with no change to pkg/report, pkg/plots or pkg/nb. It fails if any of
// them keeps a list of paths of its own.
func TestNewPathIsOneRegistration(t *testing.T) {
	const name, colour = "test-carrier-pigeon", "#123456"
	unregister, err := model.RegisterPath(model.Path{
		Name: name, Title: "a test path", Order: 35, Role: model.RoleCompared,
		Story: "One NIC reads GPU memory and the wire carries it; nothing else (a test).",
		Style: model.Style{Color: colour, Dash: model.DashDashed, Glyph: model.GlyphDiamond, Filled: true},
		Build: func(s *model.Scenario) ([]model.Stage, string) {
			return []model.Stage{
				{Name: "pigeon takes off", Letter: "C", Side: model.Sender, Alpha: 1e-6, PerByte: units.Seconds(1 / float64(s.NIC.Rate)), Grain: 4096},
				{Name: "pigeon lands", Letter: "E", Side: model.Receiver, Alpha: 1e-6, PerByte: units.Seconds(1 / float64(s.NIC.Rate)), Grain: 4096},
			}, ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer unregister()
	if _, err := model.RegisterPath(model.Path{Name: name, Role: model.RoleCompared, Build: func(*model.Scenario) ([]model.Stage, string) { return nil, "" }}); err == nil {
		t.Error("a path registered twice")
	}

	s := model.Default()
	rep, err := report.Render(report.Input{Scenario: s, Source: "preset default", Version: "test", Host: "h",
		Time: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), RunID: "newpath", ProbeNote: "--model-only"})
	if err != nil {
		t.Fatal(err)
	}
	page := string(rep.File(report.HTMLFile))
	if n := strings.Count(page, name); n < 5 {
		t.Errorf("the report names the new path %d times, want it in the figures and tables", n)
	}
	drawn := 0
	for _, f := range rep.Figures {
		for _, file := range f.Files {
			if strings.HasSuffix(file, ".csv") && strings.Contains(string(rep.File(file)), name) {
				drawn++
			}
		}
	}
	if drawn < 4 {
		t.Errorf("the new path is in the data of %d figures, want every inter-node figure (latency, bandwidth, CPU, costs, …)", drawn)
	}
	if !strings.Contains(strings.ToLower(page), colour) {
		t.Errorf("the report's figures do not draw the new path in its colour %s", colour)
	}

	if !containsName(nb.GPUPaths(), name) || !containsName(nb.ComparedPaths(), name) {
		t.Errorf("the notebook helpers' path lists %v lack the new path", nb.GPUPaths())
	}
	table, err := nb.PathTable(s, nb.GPUPaths(), nb.Small, nb.Large)
	if err != nil || !strings.Contains(table, name) {
		t.Errorf("nb.PathTable does not list the new path: %v", err)
	}
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
