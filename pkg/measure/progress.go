package measure

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

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

// Planned may be implemented by a Progress that words its lines from the
// run's plan: the runner calls WithPlan once, before the first probe, and
// tells what it returns instead. Bar and Lines take the tolerance that
// "not settled" was judged against, and keep what they need to say why a
// probe ran past its budget.
type Planned interface {
	WithPlan(plan Plan) Progress
}

// Every time in these lines is spelled by units.Seconds.Human ("3.44 µs",
// "1.5 s"), the one spelling of times for people, through humanSeconds and
// humanDuration; never by time.Duration's String ("3.44µs", "1.5s") or the
// compact "3.44us" of scenario keys. TestProgressTimesHuman checks it.

// Describe is a one-line summary of a record, for progress output and logs:
// "tcp pingpong 64B loopback: 17.1 µs one-way median, p99 75.3 µs (n=36304)".
// Its "not settled" is worded with DefaultTolerance.
func Describe(r record.Result) string { return describe(r, 0) }

// describe is Describe with the tolerance the record was judged against
// (0: DefaultTolerance).
func describe(r record.Result, tol float64) string {
	var b strings.Builder
	b.WriteString(r.Probe)
	if r.Variant != "" {
		b.WriteString(" " + r.Variant)
	}
	if !inventory(r) || r.Bytes != 0 {
		fmt.Fprintf(&b, " %s", units.Bytes(r.Bytes))
	}
	if r.Target != "" {
		b.WriteString(" " + r.Target)
	}
	b.WriteString(": ")
	if inventory(r) {
		// A record of what is there (a device, a link), not a timing.
		b.WriteString(cmp.Or(oneLine(r.Note), "found"))
		return b.String()
	}
	words := timeWords(r)
	if throughputFirst(r) {
		b.WriteString(rateText(r))
		fmt.Fprintf(&b, ", %s %s median", humanSeconds(r.MedianS), words)
	} else {
		med := humanSeconds(r.MedianS)
		if words != "" {
			med += " " + words
		}
		fmt.Fprintf(&b, "%s median, p99 %s", med, humanSeconds(r.P99S))
	}
	fmt.Fprintf(&b, " (n=%d", r.Iterations)
	if !r.Stable {
		b.WriteString(", " + notSettled(r, tol))
	}
	b.WriteString(")")
	return b.String()
}

// inventory reports a record that times nothing (topo, rdma, nvml: what
// hardware is there).
func inventory(r record.Result) bool {
	return r.MedianS == 0 && r.P99S == 0 && r.ThroughputBps == 0
}

// throughputFirst reports a record read as a rate: a stream's goodput, a
// copy's bandwidth.
func throughputFirst(r record.Result) bool {
	return r.ThroughputBps > 0 && (r.Variant == "stream" || r.Probe == "memcpy")
}

// rateText is a record's rate: a TCP stream's in bits per second (as link
// rates and iperf3 say it), others in bytes per second.
func rateText(r record.Result) string {
	if r.ThroughputBps <= 0 {
		return ""
	}
	if r.Variant == "stream" {
		return units.Rate(r.ThroughputBps).HumanBits()
	}
	return units.Rate(r.ThroughputBps).Human()
}

// timeWords says what one time of a record is: whether a latency is one
// way or a round trip, or what else it is the time of. The words follow
// each probe's Note (tcp.go, syscall.go, memcpy.go, staged_host.go,
// perftest.go, pair.go, gpu/cudacopy.go, gpu/staged.go); "" for a probe
// not listed.
func timeWords(r record.Result) string {
	switch r.Probe {
	case "tcp":
		if r.Variant == "stream" {
			return "per write"
		}
		return "one-way" // half the round trip
	case "staged-host", "staged":
		return "one-way + ack" // from the first copy to the receiver's ack of the last byte
	case "memcpy", "cuda":
		return "per copy"
	case "syscall":
		if r.Variant == "socketpair" {
			return "per write + read"
		}
		return "per call"
	case "perftest":
		switch {
		case strings.HasSuffix(r.Variant, "_lat") && strings.Contains(r.Variant, "read"):
			return "round trip"
		case strings.HasSuffix(r.Variant, "_lat"):
			return "one-way" // half the round trip, as perftest reports it
		}
		return "per message"
	case "peer":
		return "per connection"
	}
	return ""
}

// notSettled says what Repeat found when it stopped without a settled
// median: it checks the median of all samples at MinIterations samples and
// then each 1.5× further (5, 8, 12, 18, …), and the median is settled when
// it moved by at most the tolerance at two checks in a row (so 12 samples
// at the least).
func notSettled(r record.Result, tol float64) string {
	if tol <= 0 {
		tol = DefaultTolerance
	}
	pct := units.FormatSig(tol*100, 3)
	if least := settleLeast(); r.Iterations < least {
		return fmt.Sprintf("not settled: time for %s, under the %d that two checks in a row within %s %% need", plural(r.Iterations, "sample"), least, pct)
	}
	return fmt.Sprintf("not settled: its median did not hold within %s %% for two checks in a row", pct)
}

// settleLeast is the fewest samples with which Repeat can find a median
// settled: its third checkpoint (the first has nothing to compare with).
func settleLeast() int {
	n := defaultMinIterations
	for range 2 {
		n = int(math.Ceil(float64(n) * 1.5))
	}
	return n
}

// statusLine is a one-line summary of a probe's outcome: "tcp: ok in 5.9 s
// of 6 s, 9 results". A probe that ran past its budget by more than a
// hundredth of it says by how much, and when its last result came (last,
// if known): a repetition that ran past it, or the probe's ending.
func statusLine(st record.ProbeStatus, last time.Time) string {
	s := fmt.Sprintf("%s: %s", st.Name, st.Status)
	timed := !st.Start.IsZero() && !st.End.IsZero() && st.Status != record.StatusUnavailable
	if timed {
		el := st.End.Sub(st.Start).Seconds()
		s += " in " + humanSeconds(el)
		if st.BudgetS > 0 {
			s += " of " + humanSeconds(st.BudgetS)
		}
	}
	if st.Status != record.StatusUnavailable {
		s += ", " + plural(st.Results, "result")
	}
	if st.Reason != "" {
		s += " (" + st.Reason + ")"
	}
	if timed && st.BudgetS > 0 {
		s += overrun(st, last)
	}
	return s
}

// overrun is what statusLine adds for a probe that ran past its budget by
// more than a hundredth of it and 10 ms: "; 2.6 s over its budget: its
// last result came 2.5 s after it, and the probe ended 0.1 s after that".
func overrun(st record.ProbeStatus, last time.Time) string {
	end := st.Start.Add(time.Duration(st.BudgetS * float64(time.Second)))
	over := st.End.Sub(end)
	if over <= max(time.Duration(st.BudgetS*float64(time.Second)/100), 10*time.Millisecond) {
		return ""
	}
	s := "; " + humanDuration(over) + " over its budget"
	switch {
	case last.IsZero() || last.Before(st.Start) || last.After(st.End):
	case last.After(end):
		which := "its last result"
		if st.Results == 1 {
			which = "its one result (a probe always measures its first size)"
		}
		s += ": " + which + " came " + humanDuration(last.Sub(end)) + " after it, and the probe ended " +
			humanDuration(st.End.Sub(last)) + " after that"
	default:
		s += ": its last result came in time; ending the probe took " + humanDuration(st.End.Sub(last))
	}
	return s
}

// startLine is a probe's first line: "tcp: 9 measurements, budget 10.8 s".
func startLine(probe string, steps int, budget time.Duration) string {
	if steps > 0 {
		return fmt.Sprintf("%s: %s, budget %s", probe, plural(steps, "measurement"), humanDuration(budget))
	}
	return fmt.Sprintf("%s: budget %s", probe, humanDuration(budget))
}

// Lines is a Progress that writes one plain line per result and per probe
// outcome: for logs and pipes. The lines are stable: a probe's start, each
// result indented by two spaces (Describe), the outcome.
type Lines struct {
	W io.Writer
	// st is what WithPlan gave: the tolerance and the last result's time;
	// nil for a Lines used on its own.
	st *linesState
}

type linesState struct {
	tol  float64
	last time.Time
}

// WithPlan is l worded from plan (Planned).
func (l Lines) WithPlan(plan Plan) Progress {
	return Lines{W: l.W, st: &linesState{tol: plan.Tolerance}}
}

// Start writes the probe's name and budget.
func (l Lines) Start(probe string, steps int, budget time.Duration) {
	if l.st != nil {
		l.st.last = time.Time{}
	}
	fmt.Fprintln(l.W, startLine(probe, steps, budget))
}

// Step writes the result.
func (l Lines) Step(r record.Result) {
	tol := 0.0
	if l.st != nil {
		tol, l.st.last = l.st.tol, r.Time
	}
	fmt.Fprintln(l.W, "  "+describe(r, tol))
}

// Done writes the outcome.
func (l Lines) Done(st record.ProbeStatus) {
	var last time.Time
	if l.st != nil {
		last, l.st.last = l.st.last, time.Time{}
	}
	fmt.Fprintln(l.W, statusLine(st, last))
}

// Bar is a Progress for a terminal. Each probe gets its start line, then a
// table of its results, one row per size as it is measured (variant, size,
// target, median and what it is the time of, p99, rate, spread, samples),
// and under the table a bar of results done, redrawn in place; when the
// probe ends, the bar gives way to the outcome, and the table stays on the
// screen.
type Bar struct {
	W io.Writer
	// Width of the bar in characters (default 24).
	Width int
	// Now is the clock (default time.Now).
	Now func() time.Time

	tol        float64
	probe      string
	steps      int
	done       int
	start      time.Time
	budget     time.Duration
	header     bool      // the probe's table header is out
	lastResult time.Time // of the probe's last result
	drawn      int       // characters of the bar line on the screen, to blank it
}

func (b *Bar) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// WithPlan is b worded from plan (Planned).
func (b *Bar) WithPlan(plan Plan) Progress {
	b.tol = plan.Tolerance
	return b
}

// Start writes the probe's start line and draws its bar.
func (b *Bar) Start(probe string, steps int, budget time.Duration) {
	b.clear()
	b.probe, b.steps, b.done, b.start, b.budget = probe, steps, 0, b.now(), budget
	b.header, b.lastResult = false, time.Time{}
	fmt.Fprintln(b.W, startLine(probe, steps, budget))
	b.draw()
}

// Step writes the result's row above the bar and redraws the bar.
func (b *Bar) Step(r record.Result) {
	b.done++
	b.lastResult = r.Time
	b.clear()
	if inventory(r) {
		fmt.Fprintln(b.W, "  "+describe(r, b.tol))
	} else {
		if !b.header {
			fmt.Fprintln(b.W, tableRow("variant", "size", "target", "median", "p99", "rate", "spread", "n", ""))
			b.header = true
		}
		fmt.Fprintln(b.W, resultRow(r, b.tol))
	}
	b.draw()
}

// Done replaces the bar with the probe's outcome.
func (b *Bar) Done(st record.ProbeStatus) {
	b.clear()
	last := time.Time{}
	if st.Name == b.probe {
		last = b.lastResult
	}
	fmt.Fprintln(b.W, statusLine(st, last))
	b.probe = ""
}

// tableRow lays out one row of a probe's table: fixed columns, wider
// content pushing the rest of its row along (rows are written as they
// come, so no column can be sized from them all).
func tableRow(variant, size, target, median, p99, rate, spread, n, note string) string {
	row := fmt.Sprintf("  %-12s %8s  %-18s %-24s %10s %12s %7s %7s", variant, size, target, median, p99, rate, spread, n)
	if note != "" {
		row += "  " + note
	}
	return strings.TrimRight(row, " ")
}

// resultRow is a record's row in Bar's table.
func resultRow(r record.Result, tol float64) string {
	med := humanSeconds(r.MedianS)
	if w := timeWords(r); w != "" {
		med += " " + w
	}
	note := ""
	if !r.Stable {
		note = notSettled(r, tol)
	}
	return tableRow(r.Variant, units.Bytes(r.Bytes).String(), r.Target, med, humanSeconds(r.P99S),
		rateText(r), fmt.Sprintf("%.1f %%", r.Spread*100), fmt.Sprint(r.Iterations), note)
}

// clear blanks the bar line, leaving the cursor at its start.
func (b *Bar) clear() {
	if b.drawn > 0 {
		fmt.Fprintf(b.W, "\r%s\r", strings.Repeat(" ", b.drawn))
		b.drawn = 0
	}
}

// maxBar bounds the characters of the bar line (a terminal of 80 columns
// or more holds it on one line).
const maxBar = 79

func (b *Bar) draw() {
	w := b.Width
	if w <= 0 {
		w = 24
	}
	el := b.now().Sub(b.start)
	frac := 0.0
	if b.steps > 0 {
		frac = float64(b.done) / float64(b.steps)
	} else if b.budget > 0 {
		frac = el.Seconds() / b.budget.Seconds()
	}
	frac = min(max(frac, 0), 1)
	full := int(frac * float64(w))
	bar := strings.Repeat("#", full) + strings.Repeat("-", w-full)
	count := ""
	if b.steps > 0 {
		count = fmt.Sprintf(" %d/%d", b.done, b.steps)
	}
	line := fmt.Sprintf("%-8s [%s]%s  %s of %s", b.probe, bar, count, humanDuration(el), humanDuration(b.budget))
	if utf8.RuneCountInString(line) > maxBar {
		line = string([]rune(line)[:maxBar])
	}
	fmt.Fprintf(b.W, "\r%s", line)
	b.drawn = utf8.RuneCountInString(line)
}

// plural is n and the noun, with an s unless n is 1: "1 result", "9 results".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
