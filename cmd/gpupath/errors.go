package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
	"github.com/gpupath/gpupath/pkg/validate"
)

// Version is the tool version written into every report and manifest.
var Version = "0.1.0-dev"

// checkOut refuses, as bad input, an --out run or report directory that
// holds a run or is not new or empty (safeio.CheckOutDir).
func checkOut(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, record.ManifestFile)); err == nil {
		return usagef("--out %s already holds a run", dir)
	} else if err := safeio.CheckOutDir(dir); err != nil {
		return usagef("--out %s: %v", dir, err)
	}
	return nil
}

// usageError marks bad input: the command exits 2 with one line.
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// usagef returns a bad-input error.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// badInput wraps err as bad input (exit 2); nil stays nil.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	var u *usageError
	if errors.As(err, &u) {
		return err
	}
	return &usageError{err}
}

// errHelp is returned when -h was asked for: the usage was printed, exit 0.
var errHelp = flag.ErrHelp

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to w only when -h is given. (The flag package calls
// Usage on every parse error and again for -h; it is a no-op here, and
// parseFlags prints the usage once, for -h only.)
func newFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gpupath "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	usageMu.Lock()
	usageOf[fs] = func() {
		fs.SetOutput(w)
		fmt.Fprintf(w, "usage: gpupath %s [flags]\n", name)
		fs.PrintDefaults()
		if l := limitsOf(name); len(l) > 0 {
			fmt.Fprintln(w, "limits (a message names the one passed):")
			for _, line := range l {
				fmt.Fprintln(w, "  "+line)
			}
		}
		fs.SetOutput(io.Discard)
	}
	usageMu.Unlock()
	return fs
}

// limitsOf lists the bounds on what a command reads from outside, from the
// constants that enforce them (README, "Bad input, limits and interruption").
func limitsOf(name string) []string {
	lim := safeio.FormatLimit
	scenario := "scenario file " + lim(model.MaxScenarioBytes) + "; a FIFO, a device or a directory is refused"
	run := fmt.Sprintf("run directory: manifest.json and doctor.json %s, results.jsonl %s, lines %s (longer ones are skipped and listed), %s records per run and in all",
		lim(record.MaxManifestBytes), lim(record.MaxResultsBytes), lim(record.MaxLineBytes), groupThousands(record.MaxRecords))
	switch name {
	case "model":
		return []string{scenario}
	case "report":
		return []string{scenario, run, "imported tool output " + lim(importers.MaxFileBytes) + " per file", fmt.Sprintf("PDF %d pages", report.MaxPages)}
	case "fit":
		return []string{run}
	case "validate":
		return []string{fmt.Sprintf("--data table %s and %s rows; a FIFO, a device or a directory is refused", lim(validate.MaxTableBytes), groupThousands(validate.MaxRows))}
	case "import":
		return []string{"tool output " + lim(importers.MaxFileBytes) + " per file"}
	case "doctor":
		return []string{scenario, "one file of a tree, and the --nvml file, " + lim(doctor.MaxFileBytes) + ", all files of one run " + lim(doctor.MaxTotalBytes) + "; a FIFO or a device is refused, a link out of its root not followed; each text of a finding at most " + strconv.Itoa(doctor.MaxTextBytes) + " bytes"}
	case "serve":
		return []string{fmt.Sprintf("%d sessions at once and %s of message buffers in all (past either: a busy answer)", measure.DefaultMaxSessions, lim(measure.DefaultMaxBuffers)),
			fmt.Sprintf("each message delivered at %s or faster within --timeout plus its size at that rate; %g min per connection",
				units.Rate(measure.DefaultMinRate).Human(), measure.DefaultMaxConnTime.Minutes())}
	}
	return nil
}

// groupThousands writes n with commas: 1,000,000.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var (
	usageMu sync.Mutex
	usageOf = map[*flag.FlagSet]func(){}
)

// parseFlags parses args; -h prints the usage and yields errHelp, any other
// flag error is bad input. Positional arguments are refused unless allowed.
func parseFlags(fs *flag.FlagSet, args []string, allowArgs bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usageMu.Lock()
			u := usageOf[fs]
			usageMu.Unlock()
			if u != nil {
				u()
			}
			return errHelp
		}
		return usagef("%v", err)
	}
	if !allowArgs && fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// parseInterspersed parses flags before, between and after positional
// arguments (GNU style: preset show NAME --resolved, catalog show K80
// --format json) and returns the positional arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, true); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
