package report

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/doctor"
)

// The section "Diagnosis": what gpupath doctor found on the machines that
// measured (a run's doctor record, Measured.Diagnosis), worst first, with the
// facts as read, the fix and the model's price. The report has the section
// only when a run holds a record; SectionTitles does not list it.

// diagnosisTitle is the section's heading.
const diagnosisTitle = "Diagnosis"

// diagnosis fills the section (before "Provenance", when hasDiagnosis).
func (b *builder) diagnosis(sec *section) {
	var runs []Measured
	var notes []string
	for _, m := range b.in.Measured {
		if m.Diagnosis != nil {
			runs = append(runs, m)
		}
		if m.DiagnosisNote != "" {
			notes = append(notes, m.DiagnosisNote)
		}
	}
	sec.text("What gpupath doctor read on the hosts that measured: the facts that decide which path GPU traffic between nodes can take (peer-memory modules, DMA-BUF, the GPU↔NIC class, link training, ACS, the IOMMU, MTU, NVLink). Each finding gives the fact as read, the fix, and its price from the model: the path the traffic falls back to and what that does at 8 B, 1 MiB and 1 GiB.")
	for _, n := range notes {
		sec.p("Not shown: %s.", n)
	}
	for _, m := range runs {
		diagnosisRun(sec, m)
	}
}

// hasDiagnosis reports whether in has a section "Diagnosis": a run with a
// doctor record, or one whose record could not be read.
func hasDiagnosis(in *Input) bool {
	for _, m := range in.Measured {
		if m.Diagnosis != nil || m.DiagnosisNote != "" {
			return true
		}
	}
	return false
}

func diagnosisRun(sec *section, m Measured) {
	r := m.Diagnosis
	s := r.Summary
	sec.h3("Doctor on " + orNone(m.Host))
	sec.p("Run %s: %d error, %d warn, %d unknown, %d info, %d ok. Read from sysfs %s and procfs %s; GPU facts from %s; priced with scenario %s%s.",
		m.Source, s.Error, s.Warn, s.Unknown, s.Info, s.OK, orNone(r.Roots.Sys), orNone(r.Roots.Proc), orNone(r.GPUSource), orNone(r.Scenario), hostKeysText(r.Host))
	t := &docTable{Head: []string{"severity", "finding", "what was read", "fix", "what it costs"}, Widths: []float64{0.7, 1.4, 2.4, 2, 2.4}}
	var ok []string
	for _, f := range r.Findings {
		if f.Severity == doctor.OK {
			ok = append(ok, f.ID+subjectText(f.Subject)+": "+f.Title)
			continue
		}
		cost := "—"
		if f.Price != nil {
			cost = f.Price.Summary
		}
		t.Rows = append(t.Rows, []cell{
			c(strings.ToUpper(string(f.Severity))),
			{Text: f.ID, Sub: f.Subject},
			{Text: f.Title, Sub: factsText(f.Facts, 3)},
			c(orDashText(f.Fix)),
			c(cost),
		})
	}
	if len(t.Rows) > 0 {
		sec.table(t)
	}
	if len(ok) > 0 {
		sec.p("As it should be (%d):", len(ok))
		sec.list(ok)
	}
}

func hostKeysText(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return " with the host's " + strings.Join(keys, " ")
}

func subjectText(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// factsText lists up to n facts as read, "source: value".
func factsText(fs []doctor.Fact, n int) string {
	var parts []string
	for i, f := range fs {
		if i == n {
			parts = append(parts, fmt.Sprintf("… %d more", len(fs)-n))
			break
		}
		v := f.Value
		if !f.OK() {
			v = f.Error
		}
		parts = append(parts, f.Source+": "+v)
	}
	return strings.Join(parts, "; ")
}

func orDashText(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
