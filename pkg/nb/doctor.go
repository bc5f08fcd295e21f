package nb

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/record"
)

// ExampleDiagnosis is the committed record of `gpupath doctor --format json`
// on the project's one-GPU machine (reports/examples/doctor/README.md).
const ExampleDiagnosis = "reports/examples/doctor/h200-1gpu.json"

// Diagnosis renders a doctor record (gpupath doctor --format json, or a
// run's doctor.json) as a notebook table, worst finding first: severity,
// what was found, and its price from the model where it has one. path is
// relative to root unless absolute.
func Diagnosis(root, path string) (string, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	b, err := safeio.ReadFile(context.Background(), path, record.MaxManifestBytes)
	if err != nil {
		return "", fmt.Errorf("nb: %w", err)
	}
	rep, err := doctor.ReadJSON(b)
	if err != nil {
		return "", fmt.Errorf("nb: %s: %w", path, err)
	}
	t := Table{Caption: fmt.Sprintf("gpupath doctor: %s; GPUs: %s; priced on %s",
		diagnosisCounts(rep), rep.GPUSource, rep.Scenario), Head: []string{"", "finding", "what was found", "what it costs"}}
	for _, f := range rep.Findings {
		price := ""
		if f.Price != nil {
			price = f.Price.Summary
		}
		title := f.Title
		if f.Subject != "" {
			title = f.Subject + ": " + title
		}
		t.Add(strings.ToUpper(string(f.Severity)), f.ID, title, price)
	}
	return t.HTML(), nil
}

func diagnosisCounts(rep *doctor.Report) string {
	n := map[doctor.Severity]int{}
	for _, f := range rep.Findings {
		n[f.Severity]++
	}
	var parts []string
	for _, s := range []doctor.Severity{doctor.Error, doctor.Warn, doctor.Unknown, doctor.Info, doctor.OK} {
		parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
	}
	return strings.Join(parts, ", ")
}
