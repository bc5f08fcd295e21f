package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
)

// sweep is a run of more than two ranks (measure.SweepRank): rank 0
// schedules the pairs, writes the run and its sweep.json; the others
// measure when told.
func (f *measureFlags) sweep(ctx context.Context, pr *pairing, cfg measure.RunConfig, stdout io.Writer) error {
	if err := checkOut(f.out); pr.rank.Rank == 0 && f.out != "" && err != nil {
		return err
	}
	host := measure.ReadHost("/")
	dir := f.out
	if dir == "" {
		dir = filepath.Join("reports", "runs", record.RunDirName(host.Hostname, time.Now()))
	}
	say := func(format string, a ...any) {
		if !f.quiet {
			fmt.Fprintf(stdout, format+"\n", a...)
		}
	}
	sr := &measure.SweepRank{Meeting: f.pair.meeting(pr), Pairs: f.pair.pairs,
		ReadFile: func(p string) ([]byte, error) { return safeio.ReadFile(ctx, p, measure.MaxPairLines*16) },
		Config: measure.SweepConfig{Hello: me(host, 0), PerPair: f.pair.perPair, AtOnce: f.pair.atOnce, Probes: cfg.Probes, Plan: cfg.Plan,
			Wait: f.pair.peerWait, Timeout: f.timeout, Env: cfg.Env, Dir: dir, Version: Version, Say: say}}
	m, n, err := sr.Run(ctx)
	if m == nil {
		if err == nil {
			say("rank %d (%s): measured %d pair directions; rank 0 writes the sweep's run", pr.rank.Rank, host.Hostname, n)
		}
		return badInputIf(err, errors.Is(err, measure.ErrSweepInput) || errors.Is(err, record.ErrRunExists) || errors.Is(err, record.ErrNotRunDir))
	}
	if rd, rerr := record.ReadRun(dir); rerr == nil && ctx.Err() == nil {
		path, a, werr := report.SweepFile(rd, model.Default())
		if werr != nil {
			return werr
		}
		for _, l := range a.Lines() {
			say("  %s", l)
		}
		say("sweep: %s, %d records in %s; %s; report it: gpupath report --data %s", m.Status, m.Counted(), dir, path, dir)
	}
	if err == nil && m.Status != record.StatusComplete {
		err = fmt.Errorf("sweep %s: %s", m.Status, m.Reason)
	}
	if err != nil {
		return fmt.Errorf("%v (run in %s)", err, dir)
	}
	return nil
}
