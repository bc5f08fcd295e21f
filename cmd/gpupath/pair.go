package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/gpupath/gpupath/pkg/cluster"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

// DefaultPairPort is rank 0's control port when neither --listen nor
// torchrun's MASTER_PORT names one (with --rendezvous: any free port).
const DefaultPairPort = 7471

// pairProbes are the probes of a two-host run unless --probes says otherwise.
var pairProbes = []string{"tcp", "staged-host"}

// pairFlags are the flags of a two-host run.
type pairFlags struct {
	rank, worldSize, localRank int
	peer, listen, rendezvous   string
	peerWait                   time.Duration
	// pairs and perPair make a run of more than two ranks a sweep.
	pairs   string
	perPair time.Duration
	atOnce  int
	// changed tells whether a flag was given (-1 is the flags' "from the
	// environment", so a negative value given is refused, not taken as it).
	changed func(name string) bool
}

func (p *pairFlags) register(fs *cli.FlagSet) {
	p.changed = fs.Changed
	fs.IntVar(&p.rank, "rank", -1, "this process's rank (0 serves, 1 measures); default: the launcher's environment (torchrun, Open MPI, PMIx, MPICH, Slurm, in that order)")
	fs.IntVar(&p.worldSize, "world-size", -1, "number of ranks (2 for a two-host run); default: the launcher's environment")
	fs.IntVar(&p.localRank, "local-rank", -1, "rank on this host (chooses the GPU); default: the launcher's environment")
	fs.StringVar(&p.peer, "peer", "", "rank 1: rank 0's control address host:port (default: torchrun's MASTER_ADDR:MASTER_PORT+1, or the rendezvous file)")
	fs.StringVar(&p.listen, "listen", "", "rank 0: control address to listen on (default: the port of --peer when given, :MASTER_PORT+1 under torchrun, :0 with --rendezvous, else :"+strconv.Itoa(DefaultPairPort)+"); it is on the network")
	fs.StringVar(&p.rendezvous, "rendezvous", "", "a directory both hosts share: rank 0 writes its address to gpupath-<job>.addr there, rank 1 reads it")
	fs.DurationVar(&p.peerWait, "peer-wait", 60*time.Second, "how long to wait for the other rank")
	fs.StringVar(&p.pairs, "pairs", "all", "a sweep (more than two ranks): all, ring, random:K[:DRAW] (K random partners per rank; DRAW picks another draw, default 1) or a file of pairs (two ranks or host names a line)")
	fs.DurationVar(&p.perPair, "per-pair", 2*time.Second, "a sweep: the time of one pair, both directions")
	fs.IntVar(&p.atOnce, "at-once", 0, "a sweep: at most this many pairs measure at the same time (default: every pair of a round)")
}

// checkAddr is measure.CheckAddr of a flag's value given, as bad input.
func checkAddr(flagName, addr string, listen bool) error {
	if err := measure.CheckAddr(addr, listen); addr != "" && err != nil {
		return usagef("%s %v", flagName, err)
	}
	return nil
}

// pairing is the place of this process in a two-host run.
type pairing struct {
	rank  cluster.Rank
	role  cluster.Role
	sweep bool // more than two ranks: every pair of a schedule
}

// resolve reads the rank from the flags over the environment; nil when
// this is not a two-host run (world of one and no --peer).
func (p *pairFlags) resolve(getenv cluster.Getenv) (*pairing, error) {
	for _, f := range []struct {
		name string
		v    int
	}{{"rank", p.rank}, {"world-size", p.worldSize}, {"local-rank", p.localRank}} {
		if f.v < 0 && p.changed != nil && p.changed(f.name) {
			return nil, usagef("--%s must be 0 or more, got %d", f.name, f.v)
		}
	}
	if p.atOnce < 0 {
		return nil, usagef("--at-once must be 0 (every pair of a round) or more, got %d", p.atOnce)
	}
	if p.peerWait <= 0 || p.peerWait > measure.MaxBudget {
		return nil, usagef("--peer-wait must be positive and at most %v, got %v", measure.MaxBudget, p.peerWait)
	}
	if err := checkAddr("--peer", p.peer, false); err != nil {
		return nil, err
	}
	if err := checkAddr("--listen", p.listen, true); err != nil {
		return nil, err
	}
	r, err := cluster.FromEnv(getenv)
	if err != nil && (p.rank < 0 || p.worldSize < 0) {
		return nil, badInput(err)
	}
	if err != nil {
		r = cluster.Rank{}
	}
	if r, err = r.Override(p.rank, p.worldSize, p.localRank); err != nil {
		return nil, badInput(err)
	}
	if r.Size > 2 || (p.changed != nil && (p.changed("pairs") || p.changed("per-pair"))) {
		return &pairing{rank: r, sweep: true}, nil
	}
	role, err := r.Role()
	if err != nil {
		return nil, badInput(err)
	}
	if r.Size == 1 && p.peer == "" {
		if p.listen != "" || p.rendezvous != "" {
			return nil, usagef("--listen and --rendezvous need a world of two ranks (--world-size 2, or a launcher's environment)")
		}
		return nil, nil
	}
	if err := cluster.CheckRendezvous(p.rendezvous); err != nil {
		return nil, usagef("--rendezvous %s: %v", p.rendezvous, err)
	}
	return &pairing{rank: r, role: role}, nil
}

// me is what this process says of itself to its peer.
func me(host record.Host, rank int) measure.PairHello {
	return measure.PairHello{Tool: "gpupath", Version: Version, Rank: rank, Host: host}
}

// meeting is how this rank finds rank 0 (or, rank 0, is found).
func (p *pairFlags) meeting(pr *pairing) cluster.Meeting {
	return cluster.Meeting{Rank: pr.rank, Peer: p.peer, Listen: p.listen, Rendezvous: p.rendezvous, DefaultPort: DefaultPairPort, Wait: p.peerWait}
}

// serveRank0 is rank 0: it serves until rank 1 is done.
func (f *measureFlags) serveRank0(ctx context.Context, pr *pairing, stdout io.Writer) error {
	host := measure.ReadHost("/")
	ps := &measure.PairServer{Listen: f.pair.meeting(pr).ListenAddr(), Hello: me(host, 0), Wait: f.pair.peerWait, Timeout: f.timeout}
	var file string
	if ps.Listening, file = f.pair.meeting(pr).Publisher(); file != "" {
		defer os.Remove(file)
	}
	peer, err := ps.Serve(ctx)
	if err != nil {
		return err
	}
	if !f.quiet {
		fmt.Fprintf(stdout, "rank 0 (%s): served rank 1 (%s); its run holds both hosts\n", host.Hostname, peer.Host.Hostname)
	}
	return nil
}

// measureRank1 finds rank 0, pairs with it and runs the probes against it
// (measure.RunPaired): one run directory holding both hosts and what rank 0
// measured on its side, partial with the reason when rank 0 goes away.
func (f *measureFlags) measureRank1(ctx context.Context, pr *pairing, cfg measure.RunConfig, dir string, stdout, stderr io.Writer) error {
	addr, found, err := f.pair.meeting(pr).Rank0(ctx)
	if errors.Is(err, cluster.ErrNoPeer) {
		return badInput(err)
	}
	var pc *measure.PairClient
	if err == nil {
		pc, err = measure.DialPair(ctx, addr, me(*cfg.Host, 1), f.pair.peerWait, f.timeout, 0)
	}
	if err != nil {
		return measure.WriteUnpaired(dir, cfg, Version, err.Error())
	}
	defer pc.Close()
	cfg.Pairing = &record.Pairing{Launcher: string(pr.rank.From), Rank: pr.rank.Rank, WorldSize: pr.rank.Size,
		LocalRank: pr.rank.LocalRank, PeerAddr: addr, PeerVersion: pc.Peer.Version, Found: found}
	m, lost, runErr := measure.RunPaired(ctx, pc, cfg)
	if m == nil {
		return badInputIf(runErr, errors.Is(runErr, record.ErrRunExists))
	}
	if lost {
		return runErr
	}
	return f.finish(ctx, m, runErr, dir, stdout, stderr)
}
