package measured

import (
	"cmp"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/record"
)

// Live is a measure.Progress for a notebook cell: after every event it
// hands update the whole progress display as HTML — one line per probe
// finished, and a bar for the probe running with its last result — for
// gonbui.UpdateHTML (widgets wait for a browser and hang headless).
func Live(update func(html string)) measure.Progress {
	return &live{update: update}
}

type live struct {
	update      func(string)
	done        []string // finished probes, one HTML line each
	probe, last string
	step, steps int
}

func (l *live) Start(probe string, steps int, budget time.Duration) {
	l.probe, l.step, l.steps = probe, 0, steps
	l.last = fmt.Sprintf("started, %s budget", budget.Round(100*time.Millisecond))
	l.show()
}

func (l *live) Step(r record.Result) {
	l.step++
	l.last = measure.Describe(r)
	l.show()
}

func (l *live) Done(st record.ProbeStatus) {
	line := fmt.Sprintf("<b>%s</b>: %s, %d records", html.EscapeString(st.Name), html.EscapeString(string(st.Status)), st.Results)
	if st.Reason != "" {
		line += " — " + html.EscapeString(st.Reason)
	}
	l.done = append(l.done, line)
	if st.Name == l.probe {
		l.probe = ""
	}
	l.show()
}

func (l *live) show() {
	if l.update == nil {
		return
	}
	var b strings.Builder
	b.WriteString(`<div style="font-family:sans-serif;font-size:90%">`)
	for _, d := range l.done {
		b.WriteString("<div>✓ " + d + "</div>")
	}
	if l.probe != "" {
		label := l.probe + ": " + l.last
		if l.steps > 0 {
			b.WriteString(nb.Progress(label, l.step, l.steps))
		} else { // unknown length: a bar that only says it is busy
			fmt.Fprintf(&b, `<div><progress style="width:20em;vertical-align:middle"></progress> %s</div>`, html.EscapeString(label))
		}
	}
	b.WriteString("</div>")
	l.update(b.String())
}

// QuickRun runs the quick probes (measure.RunQuick: TCP over loopback,
// memory copies, system calls; about twenty seconds) on this machine into
// a new run directory under root's LocalRuns, reporting progress through
// Live(update), and says in Markdown what it measured and where the run
// is. A run that could not start is an error; probes that fail or are
// unavailable are part of the outcome.
func QuickRun(ctx context.Context, root string, update func(html string)) (string, error) {
	host, _ := os.Hostname()
	dir := filepath.Join(root, filepath.FromSlash(LocalRuns), record.RunDirName(cmp.Or(host, "host"), time.Now()))
	start := time.Now()
	m, err := measure.RunQuick(ctx, dir, Live(update), "notebook")
	if m == nil {
		return "", fmt.Errorf("nb: quick run into %s: %w", dir, err)
	}
	rel, _ := filepath.Rel(root, dir)
	var b strings.Builder
	fmt.Fprintf(&b, "Quick run into `%s` in %.0f s: status %s.", filepath.ToSlash(rel), time.Since(start).Seconds(), m.Status)
	for _, p := range m.Probes {
		fmt.Fprintf(&b, " `%s` %s (%d records).", p.Name, p.Status, p.Results)
	}
	if err != nil {
		fmt.Fprintf(&b, " It stopped early: %v.", err)
	}
	b.WriteString(" Run the cells below again to draw it beside the committed run.")
	return b.String(), nil
}

// LiveOff says in Markdown that the live cell did not run, and how to run it.
func LiveOff() string {
	return fmt.Sprintf("Not run: `runLive` is false, so this notebook shows the committed run only. "+
		"Set it to `true` and run this cell to measure this machine with the quick probes (%.0f s at most); the run lands under `%s/` and the cells below draw it too.",
		measure.QuickBudget.Seconds(), LocalRuns)
}
