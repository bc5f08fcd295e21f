package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gpupath/gpupath/internal/termtext"
)

// WriteJSON writes the report as one indented JSON object.
func WriteJSON(w io.Writer, r *Report) error {
	enc := termtext.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadJSON reads a report written by WriteJSON (a run's doctor record).
func ReadJSON(b []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("doctor: report: %w", err)
	}
	return &r, nil
}

// textWidth is where the text report wraps.
const textWidth = 100

// WriteText writes the report for people: a summary, then each finding
// worst first with the facts as read, why it matters, the fix and the price.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "gpupath doctor: %d error, %d warn, %d unknown, %d info, %d ok\n", s.Error, s.Warn, s.Unknown, s.Info, s.OK)
	// A fact names its file where it sits on a live system (/proc/cmdline);
	// a root given elsewhere says where that was read from.
	as := func(root, live string) string {
		if root == "" || root == live {
			return orDash(root)
		}
		return root + " (read as " + live + ")"
	}
	roots := "sysfs " + as(r.Roots.Sys, "/sys") + ", procfs " + as(r.Roots.Proc, "/proc")
	if r.Roots.Boot != "" {
		roots += ", boot " + as(r.Roots.Boot, "/boot")
	}
	// Every line below passes flat or wrapTo, which fold a line break from
	// outside (an NVML version string, a path) into a space: no input
	// forges a line.
	fmt.Fprintf(&b, "read:   %s\n", flat(roots))
	fmt.Fprintf(&b, "GPUs:   %s\n", flat(r.GPUSource))
	if r.Scenario != "" {
		p := "scenario " + r.Scenario
		if len(r.Host) > 0 {
			p += ", with this host's " + strings.Join(r.Host, " ")
		}
		wrapTo(&b, "priced: ", "        ", p)
	} else {
		b.WriteString("priced: no (no scenario)\n")
	}
	for _, f := range r.Findings {
		b.WriteString("\n")
		head := fmt.Sprintf("%-7s %s", strings.ToUpper(string(f.Severity)), f.ID)
		if f.Subject != "" {
			head += "  " + f.Subject
		}
		b.WriteString(flat(head) + "\n")
		wrapTo(&b, "        ", "        ", f.Title)
		for i, fa := range f.Facts {
			label := "        "
			if i == 0 {
				label = "  read  "
			}
			v := fa.Value
			if fa.Error != "" {
				v = fa.Error
			}
			wrapTo(&b, label, "          ", fa.Source+": "+v)
		}
		if f.Why != "" {
			wrapTo(&b, "  why   ", "        ", f.Why)
		}
		if f.Fix != "" {
			wrapTo(&b, "  fix   ", "        ", f.Fix)
		}
		if f.Price != nil {
			writePrice(&b, f.Price)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writePrice(b *strings.Builder, p *Price) {
	wrapTo(b, "  price ", "        ", p.Summary)
	if len(p.Points) == 0 {
		return
	}
	bl, al := caseLabel(p.Before), caseLabel(p.After)
	if bl == al {
		bl, al = "before", "after"
	}
	fmt.Fprintf(b, "        %-8s %-28s %s\n", "size", "latency "+bl+" → "+al, "bandwidth "+bl+" → "+al)
	for _, pt := range p.Points {
		fmt.Fprintf(b, "        %-8s %-28s %s\n", formatBytes(pt.Bytes),
			formatSeconds(pt.LatencyBefore)+" → "+formatSeconds(pt.LatencyAfter),
			formatRate(pt.BandwidthBefore)+" → "+formatRate(pt.BandwidthAfter))
	}
	if len(p.Before.Set) > 0 || len(p.After.Set) > 0 {
		wrapTo(b, "        ", "          ", fmt.Sprintf("(%s: %s; %s: %s)", p.Before.Path, setText(texts(p.Before.Set)), p.After.Path, setText(texts(p.After.Set))))
	}
}

func caseLabel(c Case) string { return c.Path }

func setText(s []string) string {
	if len(s) == 0 {
		return "as the scenario"
	}
	return strings.Join(s, " ")
}

// wrapTo writes text wrapped at textWidth, the first line after first and
// the others after rest.
func wrapTo(b *strings.Builder, first, rest, text string) {
	prefix := first
	line := prefix
	n := len([]rune(line))
	empty := true
	for _, word := range strings.Fields(text) {
		wl := len([]rune(word))
		if !empty && n+1+wl > textWidth {
			b.WriteString(line + "\n")
			prefix = rest
			line, n, empty = prefix, len([]rune(prefix)), true
		}
		if !empty {
			line += " "
			n++
		}
		line += word
		n += wl
		empty = false
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
}

// flat is s on one line: a line break from outside becomes a space.
func flat(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
}

// RecordFile is the name of a run's doctor record in its run directory: the
// report's section "Diagnosis" reads it.
const RecordFile = "doctor.json"
