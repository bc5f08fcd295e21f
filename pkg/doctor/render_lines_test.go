package doctor

import (
	"strings"
	"testing"
)

// TestWriteTextNoForgedLines: a line break in any string of a report
// (an NVML version in the GPU source, a root path, a finding's id,
// subject, title, facts) never starts a line of its own in the text.
func TestWriteTextNoForgedLines(t *testing.T) {
	evil := "x\nFAKE: forged\r\nFAKE2\u2028FAKE3"
	r := &Report{Roots: Roots{Sys: evil, Proc: evil, Boot: evil}, GPUSource: "NVML " + evil, Scenario: evil, Host: []string{evil},
		Findings: []Finding{{Check: evil, ID: evil, Severity: Warn, Subject: evil, Title: evil,
			Facts: []Fact{{Source: evil, Value: evil}, {Source: evil, Error: evil}}, Why: evil, Fix: evil}}}
	var b strings.Builder
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		// Every line of the text starts with a label or an indent; a
		// wrapped word may start an indented line, never column 0.
		if strings.HasPrefix(line, "FAKE") || strings.ContainsAny(line, "\r\u2028") {
			t.Errorf("forged line: %q", line)
		}
	}
}
