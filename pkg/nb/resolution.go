package nb

import (
	"fmt"
	"html"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

// ScenarioText parses a scenario written in a cell (YAML, as a scenario
// file holds it) and resolves it: what a partial description of a cluster
// becomes (model.Parse). name names it in errors and, without a name: key,
// names the scenario.
func ScenarioText(yaml, name string) (*model.Scenario, error) {
	return model.Parse([]byte(yaml), name)
}

// Resolution is the table of how s was resolved: every key that is not the
// base preset's, with its value, the rule that gave it (given, catalog,
// derived) and why, and resolution's warnings above it — what the report's
// section "How this scenario was resolved" shows.
func Resolution(s *model.Scenario) (string, error) {
	if s == nil {
		return "", fmt.Errorf("nb: no scenario")
	}
	var b strings.Builder
	for _, w := range s.Warnings() {
		fmt.Fprintf(&b, "<p><b>Warning:</b> %s</p>", html.EscapeString(w))
	}
	t := &Table{Head: []string{"key", "value", "rule", "why"}}
	preset := 0
	for _, r := range s.Resolution() {
		if r.Rule == model.RulePreset {
			preset++
			continue
		}
		if r.Key == "description" {
			continue
		}
		t.Add(r.Key, r.Value, string(r.Rule), r.Source)
	}
	t.Caption = fmt.Sprintf("%s: %d keys given, named or derived over the preset %s; the other %d are the preset's", s.Name, len(t.Rows), s.Base(), preset)
	b.WriteString(t.HTML())
	return b.String(), nil
}

// CatalogEntry is the table of one catalog entry (any kind: GPU, NIC, CPU,
// switch, InfiniBand generation), every fact with its source, as
// `gpupath catalog show NAME` prints it.
func CatalogEntry(name string) (string, error) {
	e, ok := model.LookupCatalog("", name)
	if !ok {
		near := model.NearCatalogNames("", name)
		return "", fmt.Errorf("nb: the catalog has no entry %q (near: %s)", name, strings.Join(near, ", "))
	}
	t := &Table{Caption: fmt.Sprintf("%s (%s): %s", e.Name, e.Kind, e.Summary), Head: []string{"key", "value", "source"}}
	for _, f := range e.Facts {
		t.Add(f.Key, f.Value, f.Source)
	}
	return t.HTML(), nil
}
