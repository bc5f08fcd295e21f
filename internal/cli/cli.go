// Package cli is gpupath's one command-line grammar: GNU-style flags
// (github.com/spf13/pflag) accepted before, between and after positional
// arguments; one help text per command, the same for `gpupath help CMD`
// and `gpupath CMD --help`; one --format vocabulary (table, json and, for
// commands that print rows, csv); one JSON writer; and the exit statuses
// every command shares (Exit).
//
// A flag written with one dash (-format, the spelling of Go's flag
// package) is read as the same flag with two; help and errors always
// spell it with two.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"

	"github.com/spf13/pflag"
)

// FlagSet is one command's flags: pflag's set with the command's usage
// line, its limits and its --format choices.
type FlagSet struct {
	*pflag.FlagSet
	usage   string   // the line after "usage: gpupath "
	summary string   // what the command does, one line
	limits  []string // bounds on what the command reads
	formats []string // --format's choices, the default first
	format  *string
	help    io.Writer // where --help prints
	emptyOK []string  // string flags that take "" (AllowEmpty)
}

// New returns the flag set of the command whose usage line (after
// "gpupath ") is usage and whose one-line description is summary; its
// help goes to help.
func New(usage, summary string, help io.Writer) *FlagSet {
	name, _, _ := strings.Cut(usage, " ")
	fs := pflag.NewFlagSet("gpupath "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = true
	return &FlagSet{FlagSet: fs, usage: usage, summary: summary, help: help}
}

// Limits sets the lines the help prints under "limits".
func (f *FlagSet) Limits(lines ...string) { f.limits = lines }

// Formats are the three spellings --format takes, in the order help lists
// them.
const (
	Table = "table"
	JSON  = "json"
	CSV   = "csv"
)

// Format registers --format with these choices (Table and JSON, and CSV
// for a command that prints rows); the first is the default. Parse refuses
// any other value.
func (f *FlagSet) Format(choices ...string) *string {
	f.formats = choices
	f.format = f.String("format", choices[0], "output format: "+strings.Join(choices, ", "))
	return f.format
}

// ErrHelp is returned by Parse when --help was asked for: the help was
// printed, and the command exits 0.
var ErrHelp = pflag.ErrHelp

// Parse parses args, flags in any place among at most maxArgs positional
// arguments (-1: any number), and returns the positional arguments in
// order. --help (or -h, -help, or "help" as the only argument) prints
// the help and returns ErrHelp; every other problem is bad input.
func (f *FlagSet) Parse(args []string, maxArgs int) ([]string, error) {
	w := f.help
	if len(args) == 1 && args[0] == "help" {
		f.Help(w)
		return nil, ErrHelp
	}
	if err := f.FlagSet.Parse(f.normalize(args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			f.Help(w)
			return nil, ErrHelp
		}
		return nil, &UsageError{errors.New(f.explain(err))}
	}
	var empty string
	f.Visit(func(fl *pflag.Flag) {
		// A value given as "" is no value: never "the flag left out"
		// (--out '' would write where the default points).
		if empty == "" && fl.Value.Type() == "string" && strings.TrimSpace(fl.Value.String()) == "" && !slices.Contains(f.emptyOK, fl.Name) {
			empty = fl.Name
		}
	})
	if empty != "" {
		return nil, Usagef("--%s: an empty value (give one, or leave the flag out)", empty)
	}
	if f.format != nil && !slices.Contains(f.formats, *f.format) {
		return nil, Usagef("--format %q: want %s", *f.format, strings.Join(f.formats, ", "))
	}
	pos := f.Args()
	if maxArgs >= 0 && len(pos) > maxArgs {
		return nil, Usagef("unexpected argument %q", pos[maxArgs])
	}
	return pos, nil
}

// normalize spells a known flag given with one dash (-format json,
// -out=DIR) with two, and -help as --help; nothing after "--" changes.
func (f *FlagSet) normalize(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if name == "help" || f.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

// explain turns pflag's error into one line that names the flag with two
// dashes and, for an unknown flag, suggests the nearest one.
func (f *FlagSet) explain(err error) string {
	msg := err.Error()
	var name string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		name = strings.TrimPrefix(msg, "unknown flag: --")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// -xyz that is no flag of this command: say it as --xyz.
		if i := strings.LastIndex(msg, " in -"); i >= 0 {
			name = msg[i+len(" in -"):]
			name, _, _ = strings.Cut(name, "=")
		}
	default:
		return msg
	}
	line := fmt.Sprintf("unknown flag --%s", name)
	if near := f.nearest(name); near != "" {
		line += fmt.Sprintf(" (did you mean --%s?)", near)
	}
	return line + fmt.Sprintf(" (gpupath %s --help lists the flags)", f.Name())
}

// AllowEmpty names the string flags for which "" is a value with a
// meaning (doctor's --boot "" skips the kernel config): the others refuse it.
func (f *FlagSet) AllowEmpty(names ...string) { f.emptyOK = append(f.emptyOK, names...) }

// Name is the command's name.
func (f *FlagSet) Name() string {
	name, _, _ := strings.Cut(f.usage, " ")
	return name
}

// nearest is the flag whose name is closest to name, within a third of
// its length in edits, or "".
func (f *FlagSet) nearest(name string) string {
	best, bestD := "", max(1, len(name)/3)+1
	f.VisitAll(func(fl *pflag.Flag) {
		if d := typoDistance(name, fl.Name); d < bestD || (d == bestD && best == "" && strings.HasPrefix(fl.Name, name)) {
			best, bestD = fl.Name, d
		}
	})
	return best
}

// typoDistance is the edit distance with two neighbouring letters swapped
// counted as one edit (--siezs is one typo from --sizes), the optimal
// string alignment distance.
func typoDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// Help writes the command's help: usage, what it does, its flags (GNU
// style) and its limits.
func (f *FlagSet) Help(w io.Writer) {
	fmt.Fprintf(w, "usage: gpupath %s\n", f.usage)
	if f.summary != "" {
		fmt.Fprintf(w, "\n%s\n", f.summary)
	}
	if f.HasFlags() {
		fmt.Fprintf(w, "\nflags:\n")
		f.writeFlags(w)
	}
	if len(f.limits) > 0 {
		fmt.Fprintln(w, "\nlimits (a message names the one passed):")
		for _, l := range f.limits {
			fmt.Fprintln(w, "  "+l)
		}
	}
}

// writeFlags lists the flags GNU style, one per line: --name VALUE, its
// text, its default; the value's name is the backquoted word of the text
// or a word for its type.
func (f *FlagSet) writeFlags(w io.Writer) {
	type row struct{ left, text string }
	var rows []row
	width := 0
	f.VisitAll(func(fl *pflag.Flag) {
		name, text := pflag.UnquoteUsage(fl)
		switch {
		case fl.Value.Type() == "bool":
			name = ""
		case strings.Contains(fl.Usage, "`"):
			name = strings.ToUpper(name)
		default:
			name = valueNames[fl.Value.Type()]
		}
		left := "--" + fl.Name
		if name != "" {
			left += " " + name
		}
		if d := fl.DefValue; d != "" && d != "[]" && d != "false" && d != "0" && d != "0s" && d != "-1" && !strings.Contains(text, "default") {
			text += fmt.Sprintf(" (default %s)", d)
		}
		rows = append(rows, row{left, text})
		width = max(width, len(left))
	})
	rows = append(rows, row{"-h, --help", "this help (the same as gpupath help " + f.Name() + ")"})
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.text)
	}
}

// valueNames name a flag's value in the help by its type.
var valueNames = map[string]string{
	"string": "VALUE", "stringArray": "VALUE", "duration": "DURATION",
	"int": "N", "int64": "N", "uint": "N", "float64": "X",
}

// Given reports whether the flag was set on the command line.
func (f *FlagSet) Given(name string) bool { return f.Changed(name) }

// UsageError marks bad input: the command exits 2 with one line.
type UsageError struct{ Err error }

func (u *UsageError) Error() string { return u.Err.Error() }
func (u *UsageError) Unwrap() error { return u.Err }

// Usagef returns a bad-input error.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// BadInput wraps err as bad input (exit 2); nil stays nil.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	var u *UsageError
	if errors.As(err, &u) {
		return err
	}
	return &UsageError{err}
}

// BadInputIf is BadInput(err) when cond holds, err otherwise.
func BadInputIf(err error, cond bool) error {
	if cond {
		return BadInput(err)
	}
	return err
}

// WriteJSON writes v as the one JSON object of a command's output:
// indented by two spaces, one newline at the end.
func WriteJSON(w io.Writer, v any) error {
	enc := termtext.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Now is the time a command writes into what it makes (a report's render
// time, an import's time, the comment of a calibrated scenario): the clock,
// or SOURCE_DATE_EPOCH (seconds since 1970, the reproducible-builds
// convention) when it is set, so that the same input renders the same
// bytes. CheckEnv refuses a value that is not a whole number of seconds
// in years 1970–9999 before a command runs.
func Now() time.Time {
	if sec, ok, err := sourceDate(); ok && err == nil {
		return time.Unix(sec, 0).UTC()
	}
	return time.Now()
}

// maxSourceDate is 9999-12-31T23:59:59Z: past it a time has no RFC 3339
// form, which every manifest and report writes.
const maxSourceDate = 253402300799

func sourceDate() (int64, bool, error) {
	v, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok {
		return 0, false, nil
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || sec < 0 || sec > maxSourceDate {
		return 0, true, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want the seconds since 1970 of a time in years 1970–9999 (unset it for the clock)", termtext.Cut(v, 40))
	}
	return sec, true, nil
}

// CheckEnv checks the environment the commands read: SOURCE_DATE_EPOCH.
func CheckEnv() error {
	_, _, err := sourceDate()
	return err
}
