package measure

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// Progress is told how a run goes: a probe starts (with the number of
// results it expects, 0 if unknown, and its time budget), each result as it
// is measured, and each probe's outcome. The runner calls it from one
// goroutine at a time, never concurrently. A probe found unavailable before
// it runs gets Done without Start. Implementations draw a terminal bar
// (Bar), write plain lines (Lines), or update a notebook cell.
type Progress interface {
	Start(probe string, steps int, budget time.Duration)
	Step(r record.Result)
	Done(st record.ProbeStatus)
}

// Describe is a one-line summary of a record, for progress output and logs:
// "tcp pingpong 64B loopback: 17.1us median, p99 75.3us (n=36304)".
func Describe(r record.Result) string {
	var b strings.Builder
	b.WriteString(r.Probe)
	if r.Variant != "" {
		b.WriteString(" " + r.Variant)
	}
	fmt.Fprintf(&b, " %s", units.Bytes(r.Bytes))
	if r.Target != "" {
		b.WriteString(" " + r.Target)
	}
	b.WriteString(": ")
	if r.Variant == "stream" || (r.Probe == "memcpy" && r.ThroughputBps > 0) {
		if r.Variant == "stream" {
			b.WriteString(units.Rate(r.ThroughputBps).CompactBits())
		} else {
			b.WriteString(units.Rate(r.ThroughputBps).Compact())
		}
		fmt.Fprintf(&b, ", %s per op median", units.Seconds(r.MedianS).Compact())
	} else {
		fmt.Fprintf(&b, "%s median, p99 %s", units.Seconds(r.MedianS).Compact(), units.Seconds(r.P99S).Compact())
	}
	fmt.Fprintf(&b, " (n=%d", r.Iterations)
	if !r.Stable {
		b.WriteString(", not settled")
	}
	b.WriteString(")")
	return b.String()
}

// describeStatus is a one-line summary of a probe's outcome.
func describeStatus(st record.ProbeStatus) string {
	s := fmt.Sprintf("%s: %s", st.Name, st.Status)
	if !st.Start.IsZero() && !st.End.IsZero() && st.Status != record.StatusUnavailable {
		s += fmt.Sprintf(" in %.1fs", st.End.Sub(st.Start).Seconds())
	}
	if st.Status != record.StatusUnavailable {
		s += fmt.Sprintf(", %d results", st.Results)
	}
	if st.Reason != "" {
		s += " (" + st.Reason + ")"
	}
	return s
}

// Lines is a Progress that writes one plain line per result and per probe
// outcome: for logs and pipes.
type Lines struct{ W io.Writer }

// Start writes the probe's name and budget.
func (l Lines) Start(probe string, steps int, budget time.Duration) {
	if steps > 0 {
		fmt.Fprintf(l.W, "%s: %d measurements, budget %.1fs\n", probe, steps, budget.Seconds())
	} else {
		fmt.Fprintf(l.W, "%s: budget %.1fs\n", probe, budget.Seconds())
	}
}

// Step writes the result.
func (l Lines) Step(r record.Result) { fmt.Fprintln(l.W, "  "+Describe(r)) }

// Done writes the outcome.
func (l Lines) Done(st record.ProbeStatus) { fmt.Fprintln(l.W, describeStatus(st)) }

// Bar is a Progress for a terminal: one line per probe, redrawn in place
// with a bar of results done and the last result, ended by the outcome.
type Bar struct {
	W io.Writer
	// Width of the bar in characters (default 24).
	Width int
	// Now is the clock (default time.Now).
	Now func() time.Time

	probe  string
	steps  int
	done   int
	start  time.Time
	budget time.Duration
	last   int // length of the last drawn line, to blank it
}

func (b *Bar) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Start begins a probe's line.
func (b *Bar) Start(probe string, steps int, budget time.Duration) {
	b.probe, b.steps, b.done, b.start, b.budget = probe, steps, 0, b.now(), budget
	b.draw("")
}

// Step advances the bar and shows the result.
func (b *Bar) Step(r record.Result) {
	b.done++
	d := Describe(r)
	if i := strings.Index(d, ": "); i >= 0 && strings.HasPrefix(d, r.Probe+" ") {
		d = d[len(r.Probe)+1:]
	}
	b.draw(d)
}

// Done ends the probe's line with its outcome.
func (b *Bar) Done(st record.ProbeStatus) {
	line := describeStatus(st)
	pad := ""
	if b.last > len(line) {
		pad = strings.Repeat(" ", b.last-len(line))
	}
	fmt.Fprintf(b.W, "\r%s%s\n", line, pad)
	b.last, b.probe = 0, ""
}

func (b *Bar) draw(detail string) {
	w := b.Width
	if w <= 0 {
		w = 24
	}
	frac := 0.0
	if b.steps > 0 {
		frac = float64(b.done) / float64(b.steps)
	} else if b.budget > 0 {
		frac = b.now().Sub(b.start).Seconds() / b.budget.Seconds()
	}
	frac = min(max(frac, 0), 1)
	full := int(frac * float64(w))
	bar := strings.Repeat("#", full) + strings.Repeat("-", w-full)
	count := ""
	if b.steps > 0 {
		count = fmt.Sprintf(" %d/%d", b.done, b.steps)
	}
	el := b.now().Sub(b.start).Seconds()
	line := fmt.Sprintf("%-8s [%s]%s %4.1fs/%.0fs %s", b.probe, bar, count, el, b.budget.Seconds(), detail)
	if len(line) > 110 {
		line = line[:110]
	}
	pad := ""
	if b.last > len(line) {
		pad = strings.Repeat(" ", b.last-len(line))
	}
	fmt.Fprintf(b.W, "\r%s%s", line, pad)
	b.last = len(line)
}
