package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	rank cluster.Rank
	role cluster.Role
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

// serveRank0 is rank 0: it serves until rank 1 is done.
func (f *measureFlags) serveRank0(ctx context.Context, pr *pairing, stdout io.Writer) error {
	listen := f.pair.listen
	if listen == "" {
		switch mp, ok := pr.rank.MasterPeer(); {
		case f.pair.peer != "":
			// The launcher gave every rank the same line (srun, mpirun):
			// rank 0 serves on the port that rank 1 dials.
			_, port, _ := net.SplitHostPort(f.pair.peer)
			listen = ":" + port
		case ok:
			_, port, _ := net.SplitHostPort(mp)
			listen = ":" + port
		case f.pair.rendezvous != "":
			listen = ":0"
		default:
			listen = ":" + strconv.Itoa(DefaultPairPort)
		}
	}
	host := measure.ReadHost("/")
	ps := &measure.PairServer{Listen: listen, Hello: me(host, 0), Wait: f.pair.peerWait, Timeout: f.timeout}
	if f.pair.rendezvous != "" {
		file := cluster.RendezvousFile(f.pair.rendezvous, pr.rank.Job)
		ps.Listening = func(addr string) error {
			h, port, _ := net.SplitHostPort(addr)
			if ip := net.ParseIP(h); ip == nil || ip.IsUnspecified() {
				h = cluster.AdvertiseIP()
			}
			return cluster.Publish(file, net.JoinHostPort(h, port))
		}
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

// dialRank0 is rank 1's start: it finds rank 0 and pairs with it.
func (f *measureFlags) dialRank0(ctx context.Context, pr *pairing, host record.Host) (*measure.PairClient, *record.Pairing, error) {
	addr, found := f.pair.peer, "flag"
	if addr == "" {
		if mp, ok := pr.rank.MasterPeer(); ok {
			addr, found = mp, "torchrun MASTER_ADDR:MASTER_PORT+1"
		} else if f.pair.rendezvous != "" {
			file := cluster.RendezvousFile(f.pair.rendezvous, pr.rank.Job)
			a, err := cluster.Await(ctx, file, f.pair.peerWait)
			if err != nil {
				return nil, nil, err
			}
			addr, found = a, "rendezvous "+filepath.Base(file)
		} else {
			return nil, nil, badInput(cluster.ErrNoPeer)
		}
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, nil, usagef("--peer %q: want host:port", addr)
	}
	pc, err := measure.DialPair(ctx, addr, me(host, 1), f.pair.peerWait, f.timeout, 0)
	if err != nil {
		return nil, nil, err
	}
	return pc, &record.Pairing{Launcher: string(pr.rank.From), Rank: pr.rank.Rank, WorldSize: pr.rank.Size,
		LocalRank: pr.rank.LocalRank, PeerAddr: addr, PeerVersion: pc.Peer.Version, Found: found}, nil
}

// measureRank1 runs the probes against rank 0 and writes one run directory
// holding both hosts and what rank 0 measured on its side. When rank 0 goes
// away mid-run the run is marked partial with the reason.
func (f *measureFlags) measureRank1(ctx context.Context, pr *pairing, cfg measure.RunConfig, dir string, stdout, stderr io.Writer) error {
	host := *cfg.Host
	pc, info, err := f.dialRank0(ctx, pr, host)
	if err != nil {
		var u *usageError
		if errors.As(err, &u) {
			return err
		}
		return measure.WriteUnpaired(dir, cfg, Version, flatten(err.Error()))
	}
	defer pc.Close()
	cfg.Plan.Target = pc.Peer.Data
	peerHost := pc.Peer.Host
	cfg.Peer, cfg.Pairing = &peerHost, info
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-pc.Lost():
			cancel(pc.Err())
		case <-rctx.Done():
		}
	}()
	m, runErr := measure.Run(rctx, cfg)
	if m == nil {
		return badInputIf(runErr, errors.Is(runErr, record.ErrRunExists))
	}
	lost := pc.Err()
	if lost == nil && ctx.Err() == nil {
		sessions, err := pc.Done()
		if err != nil {
			lost = err
		} else if err := measure.AppendPeer(dir, m, sessions, peerHost.Hostname); err != nil {
			return err
		}
	}
	if lost == nil && runErr != nil && errors.Is(runErr, measure.ErrTimeout) {
		lost = runErr
	}
	if lost != nil {
		results := 0
		for _, p := range m.Probes {
			results += p.Results
		}
		m.Status, m.Reason = record.StatusPartial, flatten(lost.Error())
		if err := record.WriteManifest(dir, m); err != nil {
			return err
		}
		return fmt.Errorf("%s: partial run, %d results kept in %s", m.Reason, results, dir)
	}
	return f.finish(ctx, m, runErr, dir, stdout, stderr)
}

// flatten puts an error on one line.
func flatten(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ") }
