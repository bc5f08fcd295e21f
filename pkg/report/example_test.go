package report_test

import (
	"fmt"
	"time"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/report"
)

// A model-only report of a preset: the caller passes the time, host,
// version and run id in, so that the same input renders the same bytes.
func ExampleRender() {
	s, err := model.Preset("dgx-h100-ndr")
	if err != nil {
		panic(err)
	}
	rep, err := report.Render(report.Input{
		Scenario: s, Source: "preset dgx-h100-ndr",
		Version: "0.1.0", Host: "build-host", Time: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), RunID: "example",
		ProbeNote: "--model-only",
	})
	if err != nil {
		panic(err)
	}
	for _, f := range rep.Figures[:3] {
		fmt.Println(f.Num, f.ID, f.Kind, f.Files)
	}
	// rep.WriteDir("reports/dgx") would write it, atomically.
	fmt.Println(len(rep.File(report.HTMLFile)) > 0, len(rep.File(report.PDFFile)) > 0)

	// Output:
	// 1 paths modeled [figure-01-paths.csv figure-01-paths.json]
	// 2 latency modeled [figure-02-latency.csv figure-02-latency.json]
	// 3 breakdown modeled [figure-03-breakdown.csv figure-03-breakdown.json]
	// true true
}
