package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
)

func init() {
	commands["report"] = command{usage: "[--preset NAME | --scenario FILE] [--set k=v]... [--data DIR]... [--out DIR] [--model-only] [--format table|json]",
		summary: "render a report (HTML, PDF, figure data) of the model and of measurement runs", run: runReport, reads: true}
}

// beforeWrite, when set, is called with the directory a report is about to
// be written to: tests make another report take it first.
var beforeWrite func(dir string)

// reportsDir is where reports land when --out is not given.
const reportsDir = "reports"

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	kept := "" // the quick run's directory, once it exists: an interrupt says it is kept
	defer func() {
		if kept != "" && errors.Is(err, context.Canceled) {
			err = fmt.Errorf("interrupted: kept the quick-probe run in %s (give it to gpupath report --data); no report written: %w", kept, context.Canceled)
		}
	}()
	fs := newFlagSet("report", stdout)
	var sf scenarioFlags
	sf.register(fs)
	var data []string
	fs.StringArrayVar(&data, "data", nil, "measurement run `DIR` (made by gpupath measure) to draw over the model (repeatable)")
	out := fs.String("out", "", "report `DIR` to create; it must not exist or be empty (default: reports/<scenario>-<UTC date and time>)")
	modelOnly := fs.Bool("model-only", false, "render the model alone: run no quick probes of this host")
	format := fs.Format(cli.Table, cli.JSON)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if err := checkOut(*out); *out != "" && err != nil {
		return err
	}
	s, err := sf.resolve(ctx)
	if err != nil {
		return err
	}
	// Check every --data directory before anything is measured or written.
	if err := record.CheckDirs(data); err != nil {
		return usagef("--data %v", err)
	}
	runs, err := readRuns(ctx, data, readRun)
	if err != nil {
		return err
	}
	// The runs as the report's input: measured series, imported runs judged
	// against the model, and two runs compared.
	fromRuns, err := report.FromRunsContext(ctx, runs, s)
	if err != nil {
		return badInput(fmt.Errorf("--data %w", err)) // an interrupt still exits 1
	}
	measured := fromRuns.Measured
	for _, m := range measured {
		if m.DiagnosisNote != "" {
			fmt.Fprintf(stderr, "gpupath: warning: %s\n", termtext.Name(m.DiagnosisNote))
		}
	}

	at := now().UTC()
	host, err := os.Hostname()
	if err != nil {
		host = "unknown host (" + err.Error() + ")"
	}
	dir := *out
	if dir == "" {
		if err := report.WritableHere("reports", reportsDir); err != nil {
			return badInput(err)
		}
		dir = report.FreeDir(reportsDir, s.Name, at)
	}

	probeNote := ""
	switch {
	case *modelOnly:
		probeNote = "--model-only: no probes were run"
	case quickProbes == nil:
		probeNote = "the quick host probes are not part of this build"
	default:
		m, rd, err := runQuick(ctx, host, at, stderr, &kept)
		if err != nil {
			return err
		}
		measured = append(measured, m)
		// The quick run measured the host that renders: calibrate it only
		// when no run of another host was given.
		if len(runs) == 0 {
			runs = append(runs, rd)
		}
	}
	cal, ical, calNote, err := report.CalibrateRuns(ctx, runs, s)
	if err != nil {
		return err
	}

	in := report.Input{
		Scenario:  s,
		Source:    scenarioSource(&sf),
		Overrides: append([]string(nil), sf.sets...),
		Version:   Version,
		Host:      host,
		Time:      at,
		RunID:     filepath.Base(filepath.Clean(dir)),
		Measured:  measured,
		ProbeNote: probeNote,

		Calibration:         cal,
		CalibrationNote:     calNote,
		ImportedCalibration: ical,

		Imported: fromRuns.Imported,
		Compare:  fromRuns.Compare,
		Sweeps:   fromRuns.Sweeps,
	}
	rep, err := report.RenderContext(ctx, in)
	if err != nil {
		if errors.Is(err, report.ErrTooManyPages) {
			return badInput(err)
		}
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // interrupted: write nothing
	}
	for try := 0; ; try++ {
		if beforeWrite != nil {
			beforeWrite(dir)
		}
		err := rep.WriteDir(dir)
		if err == nil {
			break
		}
		var oe *report.OutputError
		if !errors.As(err, &oe) {
			return err
		}
		if *out != "" {
			return usagef("--out %s: cannot write the report there: %w", dir, unwrapPath(oe.Err))
		}
		// The default directory: another report took the name in the same
		// second; take the next one.
		if report.Taken(oe.Err) && try < 100 {
			dir = report.FreeDir(reportsDir, s.Name, at)
			continue
		}
		return fmt.Errorf("cannot write the report into %s: %v (give --out DIR)", dir, unwrapPath(oe.Err))
	}
	if kept != "" {
		data = append(data, kept)
	}
	sum := rep.Summary(dir, scenarioSource(&sf), data)
	sum.Sweeps = fromRuns.Sweeps
	if *format == cli.JSON {
		return cli.WriteJSON(stdout, sum)
	}
	_, err = fmt.Fprintln(stdout, sum.Line())
	return err
}

// runQuick makes the quick run into reports/runs/<host>-<UTC time> (where
// gpupath measure puts its runs, so that it can be given again with --data)
// and reads it back; *kept is the run's directory once it exists.
func runQuick(ctx context.Context, host string, at time.Time, stderr io.Writer, kept *string) (report.Measured, *record.RunData, error) {
	base := filepath.Join(reportsDir, "runs", record.RunDirName(host, at))
	dir := base
	for i := 2; ; i++ {
		err := quickProbes(ctx, dir, stderr)
		if err == nil {
			*kept = dir
			break
		}
		if errors.Is(err, record.ErrRunExists) && i < 100 { // another report, the same second
			dir = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if _, e := os.Stat(filepath.Join(dir, record.ManifestFile)); e != nil {
			return report.Measured{}, nil, fmt.Errorf("quick probes: no run made in %s: %w", dir, err)
		}
		*kept = dir
		return report.Measured{}, nil, fmt.Errorf("quick probes (run kept in %s): %w", dir, err)
	}
	rd, err := readRun(ctx, dir)
	if ctx.Err() != nil {
		return report.Measured{}, nil, ctx.Err()
	}
	if err != nil {
		return report.Measured{}, nil, fmt.Errorf("quick probes: %s: %w", dir, err)
	}
	m, err := report.FromRun(rd)
	if err != nil {
		return report.Measured{}, nil, fmt.Errorf("quick probes: %s: %w", dir, err)
	}
	m.Source = dir + " (quick probes run by gpupath report)"
	return m, rd, nil
}

// scenarioSource says how the scenario was chosen.
func scenarioSource(sf *scenarioFlags) string {
	switch {
	case sf.file != "":
		return "file " + sf.file
	case sf.preset != "":
		return "preset " + sf.preset
	}
	return "preset default"
}

// unwrapPath is safeio.PathReason: the message names the path already.
var unwrapPath = safeio.PathReason
