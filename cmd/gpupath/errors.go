package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gpupath/gpupath/internal/cli"
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

// The grammar of every command is internal/cli's: these are its names here.
var (
	usagef     = cli.Usagef
	badInput   = cli.BadInput
	badInputIf = cli.BadInputIf
)

// newFlagSet returns the flag set of the command name, with its usage line,
// summary and limits; its help goes to w.
func newFlagSet(name string, w io.Writer) *cli.FlagSet {
	c := commands[name]
	fs := cli.New(name+" "+c.usage, c.summary, w)
	fs.Limits(limitsOf(name)...)
	return fs
}

// limitsOf lists the bounds on what a command reads from outside, from the
// constants that enforce them (README, "Bad input, limits and interruption").
func limitsOf(name string) []string {
	lim := safeio.FormatLimit
	scenario := "scenario file " + lim(model.MaxScenarioBytes) + "; a FIFO, a device or a directory is refused"
	run := fmt.Sprintf("run directory: manifest.json and doctor.json %s, results.jsonl %s, lines %s (longer ones are skipped and listed), %s records per run and in all",
		lim(record.MaxManifestBytes), lim(record.MaxResultsBytes), lim(record.MaxLineBytes), units.Thousands(record.MaxRecords))
	switch name {
	case "model":
		return []string{scenario}
	case "report":
		return []string{scenario, run, "imported tool output " + lim(importers.MaxFileBytes) + " per file", fmt.Sprintf("PDF %d pages", report.MaxPages)}
	case "fit":
		return []string{run}
	case "validate":
		return []string{fmt.Sprintf("--data table %s and %s rows; a FIFO, a device or a directory is refused", lim(validate.MaxTableBytes), units.Thousands(validate.MaxRows))}
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

// parseFlags parses args, flags anywhere; positional arguments are
// refused unless allowed.
func parseFlags(fs *cli.FlagSet, args []string, allowArgs bool) error {
	n := 0
	if allowArgs {
		n = -1
	}
	_, err := fs.Parse(args, n)
	return err
}

// parseInterspersed parses flags before, between and after positional
// arguments (preset show NAME --resolved) and returns the positional
// arguments in order.
func parseInterspersed(fs *cli.FlagSet, args []string) ([]string, error) {
	return fs.Parse(args, -1)
}
