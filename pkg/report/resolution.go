package report

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

// resolution is the section "How this scenario was resolved": the preset
// the scenario starts from, then every key that is not the preset's — the
// keys given (a file, --set), the facts of the catalog entries named, the
// values derived from them — each with its rule and source, and what
// resolution warned about. The rest are the preset's, each with its source
// in the section "Provenance".
func (b *builder) resolution(sec *section) {
	s := b.in.Scenario
	res := s.Resolution()
	counts := map[model.Rule]int{}
	for _, r := range res {
		counts[r.Rule]++
	}
	base := s.Base()
	if base == "" {
		base = "(none: the scenario was built field by field)"
	}
	sec.p("Every key of scenario %s resolves in this order: the value given (a scenario file, --set) > the catalog entry a model key names (gpu.model, nic.model, cpu.model, network.switch) > a value derived from the keys declared (the NIC's kind and rate, the hops, the GPU's PCIe generation, the CPU family) > the base preset, %s. Here %d keys were given, %d came from the catalog, %d were derived and %d are the preset's.",
		s.Name, base, counts[model.RuleGiven], counts[model.RuleCatalog], counts[model.RuleDerived], counts[model.RulePreset])
	for _, w := range s.Warnings() {
		sec.note("Warning: " + w)
	}
	t := &docTable{Head: []string{"key", "value", "rule", "why"}, Widths: []float64{1.5, 1.1, 0.7, 4.2}}
	for _, r := range res {
		if r.Rule == model.RulePreset || r.Key == "description" {
			continue
		}
		t.Rows = append(t.Rows, []cell{c(r.Key), c(r.Value), {Text: string(r.Rule), Badge: ruleBadge(r.Rule)}, c(r.Source)})
		t.RowClass = append(t.RowClass, "")
	}
	if len(t.Rows) == 0 {
		sec.text(fmt.Sprintf("Nothing was given: every key is the preset %s's, each with its source in the section “Provenance”.", base))
		return
	}
	t.Caption = fmt.Sprintf("The keys of scenario %s that are not the preset's, in file order; the other %d are the preset %s's (section “Provenance” lists every key with its source).", s.Name, counts[model.RulePreset], base)
	sec.table(t)
}

// ruleBadge tints a rule: what was given and what the catalog says as
// facts, what was derived as an estimate.
func ruleBadge(r model.Rule) string {
	switch r {
	case model.RuleGiven:
		return "measured"
	case model.RuleDerived:
		return "preset"
	}
	return ""
}

// resolvedYAML is the scenario in full, every key with its rule and source.
func resolvedYAML(s *model.Scenario) string {
	return strings.TrimRight(string(s.ResolvedYAML()), "\n") + "\n"
}
