package nbcheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind names one way a notebook fails the check.
type Kind string

// The kinds of finding, in the order Check looks for them.
const (
	// Kernel: the notebook does not name the gonb kernel in its metadata.
	Kernel Kind = "kernel"
	// LongCell: a code cell has more than MaxLines lines.
	LongCell Kind = "long-cell"
	// HandNumber: a Markdown cell holds a digit outside a code span, that
	// is, a number typed by hand rather than computed.
	HandNumber Kind = "hand-number"
	// NoOutput: a code cell was not executed or produced no output.
	NoOutput Kind = "no-output"
	// Error: an error output (a compile error, a failed go get, an
	// interrupted cell).
	Error Kind = "error"
	// Panic: "panic:" in a cell's stderr or error output.
	Panic Kind = "panic"
	// ExitStatus: a line "exit status N" in a cell's output, which GoNB
	// prints when a cell's program or shell command exits non-zero.
	ExitStatus Kind = "exit-status"
	// FigureKind: the executed HTML, rendered in a browser, shows fewer
	// figures than the notebook displays, or a figure of zero size.
	FigureKind Kind = "figure"
	// StoredOutput: a notebook in the repository carries outputs. The
	// committed notebooks are sources; their executed copies are made by CI.
	StoredOutput Kind = "stored-output"
)

// Kinds lists every kind of finding.
var Kinds = []Kind{Kernel, LongCell, HandNumber, NoOutput, Error, Panic, ExitStatus, FigureKind, StoredOutput}

// MaxLines is the longest code cell allowed: notebooks call package
// functions, and anything longer belongs in a package where it is tested.
const MaxLines = 15

// Finding is one problem in one notebook. Cell is 1-based; 0 means the
// notebook as a whole.
type Finding struct {
	Notebook string
	Cell     int
	Kind     Kind
	Detail   string
}

func (f Finding) String() string {
	if f.Cell == 0 {
		return fmt.Sprintf("%s: %s: %s", f.Notebook, f.Kind, f.Detail)
	}
	return fmt.Sprintf("%s: cell %d: %s: %s", f.Notebook, f.Cell, f.Kind, f.Detail)
}

var exitLine = regexp.MustCompile(`^\s*exit status -?\d+\s*$`)

// Check judges an executed notebook. name labels the findings.
func Check(nb *Notebook, name string) []Finding {
	var out []Finding
	add := func(cell int, k Kind, format string, args ...any) {
		out = append(out, Finding{Notebook: name, Cell: cell, Kind: k, Detail: fmt.Sprintf(format, args...)})
	}
	if k := nb.Metadata.Kernelspec.Name; k != "gonb" {
		add(0, Kernel, "metadata names kernel %q, want \"gonb\"", k)
	}
	for i, c := range nb.Cells {
		n := i + 1
		switch c.Type {
		case "markdown":
			if d := handNumber(string(c.Source)); d != "" {
				add(n, HandNumber, "%s: compute numbers in a code cell (or put identifiers in `code`)", d)
			}
			continue
		case "code":
		default:
			continue
		}
		if l := len(lines(string(c.Source))); l > MaxLines {
			add(n, LongCell, "%d lines (at most %d): move the code into a package", l, MaxLines)
		}
		if c.ExecutionCount == nil {
			add(n, NoOutput, "not executed")
		} else if len(c.Outputs) == 0 {
			add(n, NoOutput, "no output: every cell shows a figure, a table or a conclusion")
		}
		for _, o := range c.Outputs {
			if o.Type == "error" {
				add(n, Error, "%s: %s", o.EName, firstLine(o.EValue))
			}
			for _, t := range outputTexts(o) {
				for _, l := range lines(t.text) {
					if t.stderr && strings.Contains(l, "panic:") {
						add(n, Panic, "%s", strings.TrimSpace(l))
					}
					if exitLine.MatchString(l) {
						add(n, ExitStatus, "%s", strings.TrimSpace(l))
					}
				}
			}
		}
	}
	return out
}

// CheckSource reports the code cells of a source notebook (as committed)
// that carry outputs or an execution count: clear them before committing
// (Jupyter: Edit → Clear All Outputs).
func CheckSource(nb *Notebook, name string) []Finding {
	var out []Finding
	for i, c := range nb.Cells {
		if c.Type == "code" && (len(c.Outputs) > 0 || c.ExecutionCount != nil) {
			out = append(out, Finding{Notebook: name, Cell: i + 1, Kind: StoredOutput,
				Detail: "a committed notebook keeps no outputs: clear them (Jupyter: Edit → Clear All Outputs)"})
		}
	}
	return out
}

type outputText struct {
	text   string
	stderr bool // stderr or an error: where a panic is reported
}

// outputTexts lists the texts of an output that a failure can show in.
func outputTexts(o Output) []outputText {
	switch o.Type {
	case "stream":
		return []outputText{{string(o.Text), o.Name == "stderr"}}
	case "error":
		return []outputText{{o.EValue + "\n" + strings.Join(o.Traceback, "\n"), true}}
	case "display_data", "execute_result":
		var out []outputText
		if t, ok := o.Data["text/plain"]; ok {
			out = append(out, outputText{string(t), false})
		}
		return out
	}
	return nil
}

// firstLine is the first line of an error message that says something:
// GoNB starts compile errors with the build's "# package" header.
func firstLine(s string) string {
	for _, l := range lines(strings.TrimSpace(s)) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "# ") {
			return l
		}
	}
	return strings.TrimSpace(s)
}

// handNumber quotes the first digit of Markdown that stands outside code
// (fenced blocks, indented blocks, `spans`) and outside link targets, with
// a few words around it, or returns "".
func handNumber(md string) string {
	fenced := false
	for _, l := range lines(md) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			continue
		}
		p := prose(l)
		if i := strings.IndexAny(p, "0123456789"); i >= 0 {
			return quote(p, i)
		}
	}
	return ""
}

// quote returns s around byte i: up to 30 bytes each side, on rune
// boundaries, quoted.
func quote(s string, i int) string {
	from, to := max(i-30, 0), min(i+30, len(s))
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to++
	}
	q := strconv.Quote(s[from:to])
	if from > 0 {
		q = "…" + q
	}
	if to < len(s) {
		q += "…"
	}
	return q
}

var (
	codeSpan   = regexp.MustCompile("`[^`]*`")
	linkTarget = regexp.MustCompile(`\]\([^)]*\)`)
)

// prose is a Markdown line without its code spans and link targets.
func prose(l string) string {
	l = codeSpan.ReplaceAllString(l, "")
	return linkTarget.ReplaceAllString(l, "]")
}
