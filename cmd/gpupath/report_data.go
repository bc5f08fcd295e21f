package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

// readRun reads one measurement run directory (manifest.json and
// results.jsonl, as gpupath measure and gpupath import write them); the
// report's input is made of it by report.FromRuns (report.FromRun). An
// error is bad input (exit 2): a missing or corrupt manifest. Lines of
// results.jsonl that are not records (the last line of a killed run) are
// skipped and listed in the report. It is a variable so that tests and
// other readers can stand in.
var readRun = readMeasureRun

// quickProbes runs the quick host probes (measure.RunQuick: tcp, memcpy,
// syscall on loopback, about 20 s) into the new run directory dir before a
// report that is not --model-only; the report then draws what they measured
// over the model. Progress goes to stderr, which keeps stdout to the two
// paths. Failed probes are recorded in the run's manifest and shown as "not
// measured"; only an interrupted or impossible run is an error. nil makes
// every report model-only.
var quickProbes = func(ctx context.Context, dir string, stderr io.Writer) error {
	m, err := measure.RunQuick(ctx, dir, newProgress(stderr), Version)
	if m == nil || ctx.Err() != nil {
		return err
	}
	return nil
}

func readMeasureRun(ctx context.Context, dir string) (*record.RunData, error) {
	rd, err := record.ReadRunContext(ctx, dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no %s: not a run directory of gpupath measure", record.ManifestFile)
	}
	if err != nil {
		// The message names the file inside dir; the caller names dir.
		return nil, errors.New(strings.TrimPrefix(unwrapPath(err).Error(), filepath.Clean(dir)+string(filepath.Separator)))
	}
	return rd, nil
}
