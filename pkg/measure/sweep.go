package measure

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gpupath/gpupath/pkg/cluster"
	"github.com/gpupath/gpupath/pkg/record"
)

// The cluster sweep: N ranks launched together (srun, mpirun, torchrun)
// measure the pairs of a schedule, in rounds of disjoint pairs, each pair
// in both directions one after the other. It runs over the pairing
// protocol's frames on rank 0's control port, and needs no shared file
// system: rank 0 alone writes the run.
//
//	rank r → rank 0   hello  (tool, version, rank, world size, host, Data:
//	                          the host:port of rank r's probe server)
//	rank 0 → rank r   hello  (rank 0's) — or refuse (another version, a
//	                          rank twice, another world size, too late)
//	rank 0 → rank r   task   (measure toward a peer's probe server for a
//	                          time; the peer's server is already up)
//	rank r → rank 0   result (the records of a task, in frames of at most
//	                          sweepBatch records, the last one Final)
//	both ways         ping, every heartbeat
//	rank 0 → rank r   end    (the sweep is over, or was stopped: Error)
//
// Every rank serves the probes (tcp, staged-host) on its own probe server
// for the whole sweep and measures toward others when told. Rank 0 takes
// part like any other rank, its tasks run in-process. A rank that goes
// away loses its pairs (listed as missing, with why); the others finish.

// SweepTask is one direction of one pair: the rank told measures toward
// the peer's probe server.
type SweepTask struct {
	ID       int      `json:"id"`
	Round    int      `json:"round"`
	Peer     int      `json:"peer"`
	PeerHost string   `json:"peer_host"`
	PeerData string   `json:"peer_data"`
	Probes   []string `json:"probes"`
	Plan     Plan     `json:"plan"`
	// BudgetNS is the time of this direction, all probes together.
	BudgetNS time.Duration `json:"budget_ns"`
}

// SweepResult is what a task measured.
type SweepResult struct {
	ID      int                  `json:"id"`
	Results []record.Result      `json:"results,omitempty"`
	Probes  []record.ProbeStatus `json:"probes,omitempty"`
	Final   bool                 `json:"final"`
}

// sweepBatch is the most records in one result frame: a sweep's records
// keep no samples, so 64 of them stay far under the 1 MiB frame.
const sweepBatch = 64

// MeasureToward runs probes toward a peer's probe server (plan.Target) for
// budget in all, shared evenly; each probe stops at 1.5× its share plus a
// second. The records keep no samples (a sweep sends them over the control
// connection and judges medians); a probe that fails or is unavailable is
// an outcome with its reason, not an error.
func MeasureToward(ctx context.Context, probes []string, plan Plan, budget time.Duration, env Env) ([]record.Result, []record.ProbeStatus) {
	var out []record.Result
	var sts []record.ProbeStatus
	start := time.Now()
	for i, name := range probes {
		st := record.ProbeStatus{Name: name, Start: time.Now().UTC()}
		share := max((budget-time.Since(start))/time.Duration(len(probes)-i), MinShare)
		p, err := New(name, env)
		if err == nil {
			err = p.Available()
		}
		if err == nil {
			pl := plan
			pl.Budget = share
			pctx, cancel := context.WithTimeout(ctx, share+share/2+time.Second)
			err = p.Run(pctx, pl, func(r record.Result) error {
				if r.Probe == "" {
					r.Probe = name
				}
				if r.Time.IsZero() {
					r.Time = time.Now().UTC()
				}
				r.Samples = nil
				if err := r.Sanitize(); err != nil {
					return err
				}
				out = append(out, r)
				st.Results++
				return nil
			})
			cancel()
		}
		st.End = time.Now().UTC()
		switch {
		case ctx.Err() != nil:
			st.Status, st.Reason = record.StatusInterrupted, "interrupted"
		case err == nil:
			st.Status = record.StatusOK
		case errors.Is(err, ErrUnavailable):
			st.Status, st.Reason = record.StatusUnavailable, reasonOf(err)
		case st.Results > 0:
			st.Status, st.Reason = record.StatusPartial, oneLine(err.Error())
		default:
			st.Status, st.Reason = record.StatusFailed, oneLine(err.Error())
		}
		sts = append(sts, st)
		if ctx.Err() != nil {
			break
		}
	}
	return out, sts
}

// SweepWorker is a rank other than 0 of a sweep.
type SweepWorker struct {
	// Addr is rank 0's control address.
	Addr string
	// Hello is what this rank says of itself (Data is filled in).
	Hello PairHello
	// Wait bounds the wait for rank 0; Timeout every read and write.
	Wait, Timeout, Heartbeat time.Duration
	// Env is handed to the probes.
	Env Env
}

// Run joins the sweep, measures what rank 0 asks until it says end, and
// returns how many tasks it ran. It serves the probes the whole time.
func (w *SweepWorker) Run(ctx context.Context) (int, error) {
	if w.Timeout <= 0 {
		w.Timeout = 5 * time.Second
	}
	if w.Heartbeat <= 0 {
		w.Heartbeat = DefaultHeartbeat
	}
	conn, err := dialRetry(ctx, w.Addr, w.Wait, w.Timeout)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	// The probe server listens where rank 0 reached us: other ranks reach
	// us there too.
	ip, _, _ := net.SplitHostPort(conn.LocalAddr().String())
	srv, err := Listen(ctx, ServerConfig{Addr: net.JoinHostPort(ip, "0"), AllowNonLoopback: true, Timeout: w.Timeout})
	if err != nil {
		return 0, err
	}
	defer srv.Close()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go srv.Serve(sctx)
	hello := w.Hello
	hello.Data = srv.Addr()
	if _, err := exchangeHello(conn, w.Addr, hello, w.Timeout); err != nil {
		return 0, err
	}
	var wmu sync.Mutex
	stop := heartbeat(conn, &wmu, w.Heartbeat, w.Timeout)
	defer stop()
	send := func(m PairMessage) error {
		wmu.Lock()
		defer wmu.Unlock()
		return writePair(conn, m, w.Timeout)
	}
	tasks := make(chan SweepTask, 4)
	ended := make(chan error, 1)
	go func() {
		for {
			m, err := readPair(conn, time.Duration(HeartbeatMiss)*w.Heartbeat)
			if err != nil {
				ended <- fmt.Errorf("%w: rank 0 (%s): %s", ErrPeerLost, w.Addr, lostReason(err))
				return
			}
			switch m.Type {
			case "task":
				if m.Task != nil {
					tasks <- *m.Task
				}
			case "end":
				if m.Error != "" {
					ended <- fmt.Errorf("rank 0 ended the sweep: %s", m.Error)
				} else {
					ended <- nil
				}
				return
			}
		}
	}()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case err := <-ended:
			return n, err
		case t := <-tasks:
			n++
			plan := t.Plan
			plan.Target = t.PeerData
			rs, sts := MeasureToward(ctx, t.Probes, plan, t.BudgetNS, w.Env)
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			for i := 0; ; i += sweepBatch {
				b := rs[min(i, len(rs)):min(i+sweepBatch, len(rs))]
				final := i+sweepBatch >= len(rs)
				res := &SweepResult{ID: t.ID, Results: b, Final: final}
				if final {
					res.Probes = sts
				}
				if err := send(PairMessage{Type: "result", Result: res}); err != nil {
					return n, fmt.Errorf("%w: sending results to rank 0: %v", ErrPeerLost, err)
				}
				if final {
					break
				}
			}
		}
	}
}

// SweepConfig is rank 0's side of a sweep.
type SweepConfig struct {
	// Listen is the control address; Listening is told the address
	// listened on (to publish it in a rendezvous file).
	Listen    string
	Listening func(addr string) error
	// Hello is rank 0's (its host names the run's host).
	Hello PairHello
	// World is the number of ranks launched; Launcher their convention.
	World    int
	Launcher string
	// Spec is the schedule asked for; Lines a pairs file's lines.
	Spec  PairsSpec
	Lines []PairLine
	// PerPair is the time of one pair, both directions.
	PerPair time.Duration
	// AtOnce bounds how many pairs of a round measure at the same time
	// (0: all of them). Hosts that share CPUs (test hosts on one machine)
	// or links (an oversubscribed fabric whose pairs are to be measured
	// alone) take fewer; each pair keeps its PerPair.
	AtOnce int
	// Probes and Plan are what each direction measures.
	Probes []string
	Plan   Plan
	// Wait bounds the wait for the ranks to come; Timeout every read and
	// write; Heartbeat the pings.
	Wait, Timeout, Heartbeat time.Duration
	Env                      Env
	// Dir receives the run; Version is the tool's.
	Dir, Version string
	// Say is told what the sweep does (its plan, each round), one line each;
	// nil for quiet.
	Say func(format string, args ...any)
}

// sweepRank is one rank as rank 0 knows it.
type sweepRank struct {
	hello  PairHello
	conn   net.Conn
	wmu    sync.Mutex
	status string // "" while fine
	// data is the address of rank 0's probe server as this rank reaches it.
	data0 string
}

// Sweep runs rank 0 of a sweep: it waits for the ranks, makes the
// schedule among those that came, runs it round by round and writes one
// run directory holding every rank's host and every pair's records (Host
// measured toward Peer). Pairs of ranks that never came, went away or
// overran their round are listed in the manifest's sweep section with
// why; the run is then partial. An interrupted sweep keeps what it
// measured (status interrupted).
func Sweep(ctx context.Context, cfg SweepConfig) (*record.Manifest, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.World < 2 || cfg.World > record.MaxSources {
		return nil, fmt.Errorf("a sweep takes 2 to %d ranks, not %d", record.MaxSources, cfg.World)
	}
	if err := CheckBudget(cfg.PerPair/2, len(cfg.Probes)); err != nil {
		return nil, fmt.Errorf("--per-pair (half for each direction) %w", err)
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("sweep: listen %s: %w", cfg.Listen, err)
	}
	defer ln.Close()
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	srv, err := Listen(ctx, ServerConfig{Addr: net.JoinHostPort(host, "0"), AllowNonLoopback: true, Timeout: cfg.Timeout})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	sctx, cancelSrv := context.WithCancel(ctx)
	defer cancelSrv()
	go srv.Serve(sctx)
	_, dataPort, _ := net.SplitHostPort(srv.Addr())

	w, err := record.Create(cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	now := time.Now().UTC()
	m := &record.Manifest{Format: record.ManifestFormat, Tool: "gpupath", Version: cfg.Version, Status: record.StatusRunning,
		Start: now, Host: cfg.Hello.Host, Plan: cfg.Plan, Results: record.ResultsFile,
		Sweep: &record.Sweep{Launcher: cfg.Launcher, World: cfg.World, Pairs: cfg.Spec.String(), PerPairS: cfg.PerPair.Seconds()}}
	for _, n := range cfg.Probes {
		m.Probes = append(m.Probes, record.ProbeStatus{Name: n, Status: record.StatusPending, Start: now})
	}
	if err := w.WriteManifest(m); err != nil {
		w.Discard()
		return nil, err
	}
	if cfg.Listening != nil {
		if err := cfg.Listening(ln.Addr().String()); err != nil {
			w.Discard()
			return nil, err
		}
	}
	s := &sweepRun{cfg: cfg, w: w, m: m, ranks: make([]*sweepRank, cfg.World), results: map[int]chan SweepResult{}, refused: map[int]string{}}
	s.ranks[0] = &sweepRank{hello: cfg.Hello}
	s.ranks[0].hello.Data = srv.Addr()
	s.gather(ctx, ln.(*net.TCPListener), dataPort)
	defer s.endAll("")
	runErr := s.run(ctx)
	return s.finish(ctx, runErr)
}

type sweepRun struct {
	cfg   SweepConfig
	w     *record.Writer
	m     *record.Manifest
	ranks []*sweepRank
	// results routes each task's result frames to its waiter.
	mu      sync.Mutex
	results map[int]chan SweepResult
	refused map[int]string
	nextID  int
	writeMu sync.Mutex
	wErr    error
}

func (s *sweepRun) say(format string, args ...any) {
	if s.cfg.Say != nil {
		s.cfg.Say(format, args...)
	}
}

// gather accepts ranks until every one has said hello or the wait is
// over. Hellos are read one at a time, each within the timeout.
func (s *sweepRun) gather(ctx context.Context, ln *net.TCPListener, dataPort string) {
	deadline := time.Now().Add(s.cfg.Wait)
	came := 1
	for came < s.cfg.World && time.Now().Before(deadline) && ctx.Err() == nil {
		next := time.Now().Add(200 * time.Millisecond)
		if next.After(deadline) {
			next = deadline
		}
		ln.SetDeadline(next)
		c, err := ln.Accept()
		if err != nil {
			continue
		}
		r, err := s.admit(c, dataPort)
		s.mu.Lock()
		// A rank refused for its version does not come back: it counts as
		// having answered.
		came = 1 + len(s.refused)
		for _, r := range s.ranks[1:] {
			if r != nil {
				came++
			}
		}
		s.mu.Unlock()
		if err != nil {
			c.Close()
			continue
		}
		go s.read(r)
	}
}

// admit reads one rank's hello and answers it: a rank of another version,
// out of range, already there or of another world size is refused.
func (s *sweepRun) admit(c net.Conn, dataPort string) (*sweepRank, error) {
	from := c.RemoteAddr().String()
	m, err := readPair(c, s.cfg.Timeout)
	if err != nil || m.Type != "hello" || m.Hello == nil {
		return nil, fmt.Errorf("sweep: %s did not say hello", from)
	}
	h := m.Hello
	refuse := func(err error) (*sweepRank, error) {
		writePair(c, PairMessage{Type: "refuse", Error: err.Error(), Hello: &s.cfg.Hello}, s.cfg.Timeout)
		return nil, err
	}
	if err := checkPeerVersion(h, s.cfg.Hello.Version, from); err != nil {
		s.markRefused(h.Rank, err)
		return refuse(err)
	}
	if _, _, err := net.SplitHostPort(h.Data); err != nil {
		return refuse(fmt.Errorf("sweep: rank %d (%s) gave no probe server address", h.Rank, from))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case h.Rank < 1 || h.Rank >= s.cfg.World:
		return refuse(fmt.Errorf("sweep: %s says it is rank %d, not one of 1 … %d", from, h.Rank, s.cfg.World-1))
	case h.World != s.cfg.World:
		return refuse(fmt.Errorf("sweep: rank %d (%s) was launched in a world of %d, rank 0 in one of %d", h.Rank, from, h.World, s.cfg.World))
	case s.ranks[h.Rank] != nil:
		return refuse(fmt.Errorf("sweep: rank %d came twice (%s and %s)", h.Rank, s.ranks[h.Rank].hello.Host.Hostname, from))
	}
	ip, _, _ := net.SplitHostPort(c.LocalAddr().String())
	r := &sweepRank{hello: *h, conn: c, data0: net.JoinHostPort(ip, dataPort)}
	me := s.cfg.Hello
	me.Data = r.data0
	if err := writePair(c, PairMessage{Type: "hello", Hello: &me}, s.cfg.Timeout); err != nil {
		return nil, err
	}
	s.ranks[h.Rank] = r
	return r, nil
}

// markRefused notes a rank refused for its version, for the manifest.
func (s *sweepRun) markRefused(rank int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rank >= 1 && rank < s.cfg.World && s.ranks[rank] == nil {
		s.refused[rank] = "refused: " + oneLine(err.Error())
	}
}

// read routes rank r's frames: results to their task, pings dropped; an
// error or silence marks the rank lost.
func (s *sweepRun) read(r *sweepRank) {
	stop := heartbeat(r.conn, &r.wmu, s.cfg.Heartbeat, s.cfg.Timeout)
	defer stop()
	for {
		m, err := readPair(r.conn, time.Duration(HeartbeatMiss)*s.cfg.Heartbeat)
		if err != nil {
			s.mu.Lock()
			if r.status == "" {
				r.status = "lost: " + lostReason(err)
			}
			for _, ch := range s.results {
				select {
				case ch <- SweepResult{ID: -1}:
				default:
				}
			}
			s.mu.Unlock()
			return
		}
		if m.Type == "result" && m.Result != nil {
			s.mu.Lock()
			ch := s.results[m.Result.ID]
			s.mu.Unlock()
			if ch != nil {
				select {
				case ch <- *m.Result:
				default: // a late frame of a task given up
				}
			}
		}
	}
}

// rankStatus is "" for a rank that is present and well, else why not.
func (s *sweepRun) rankStatus(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.ranks[i]
	if r == nil {
		if why := s.refused[i]; why != "" {
			return why
		}
		return "never came"
	}
	return r.status
}

func (s *sweepRun) hostOf(i int) string {
	if r := s.ranks[i]; r != nil {
		return r.hello.Host.Hostname
	}
	return ""
}

// run makes the schedule among the ranks that came and measures it.
func (s *sweepRun) run(ctx context.Context) error {
	var present []int
	hosts := make([]string, s.cfg.World)
	for i, r := range s.ranks {
		if r != nil {
			present = append(present, i)
			hosts[i] = r.hello.Host.Hostname
		}
	}
	// Every pair asked for, in rank space; those with a rank absent are
	// missing before the sweep starts.
	var want []Pair
	switch s.cfg.Spec.Kind {
	case "all":
		for a := range s.cfg.World {
			for b := a + 1; b < s.cfg.World; b++ {
				want = append(want, Pair{a, b})
			}
		}
	case "ring":
		want = RingPairs(s.cfg.World)
	case "random":
		want = RandomPairs(s.cfg.World, s.cfg.Spec.K, s.cfg.Spec.Seed)
	default:
		ps, err := ResolvePairLines(s.cfg.Lines, hosts)
		if err != nil {
			return fmt.Errorf("--pairs %s: %w", s.cfg.Spec.File, err)
		}
		want = ps
	}
	var ok, buf []Pair
	seen := map[Pair]bool{}
	for _, p := range want {
		p = Pair{min(p.A, p.B), max(p.A, p.B)}
		if seen[p] {
			continue
		}
		seen[p] = true
		why := s.rankStatus(p.A)
		if why == "" {
			why = s.rankStatus(p.B)
			if why != "" {
				why = "rank " + strconv.Itoa(p.B) + " " + why
			}
		} else {
			why = "rank " + strconv.Itoa(p.A) + " " + why
		}
		if why != "" {
			s.missing(p.A, p.B, why)
			s.missing(p.B, p.A, why)
			continue
		}
		ok = append(ok, p)
	}
	var sched *Schedule
	var err error
	idx := func(i int) int { return i }
	if s.cfg.Spec.Kind == "all" && len(present) >= 2 {
		sched, err = AllPairs(len(present))
		idx = func(i int) int { return present[i] }
	} else if len(ok) > 0 {
		sched, err = SubsetPairs(s.cfg.World, s.cfg.Spec.String(), ok)
	}
	if err != nil {
		return err
	}
	if sched == nil {
		s.say("sweep: %d of %d ranks came: no pair to measure", len(present), s.cfg.World)
		return nil
	}
	s.m.Sweep.Rounds, s.m.Sweep.Planned = sched.Rounds(), sched.Pairs()
	took := time.Duration(sched.Rounds()) * s.cfg.PerPair
	if s.cfg.AtOnce > 0 {
		took = 0
		for r := range sched.Rounds() {
			took += time.Duration((len(sched.Round(r, buf[:0]))+s.cfg.AtOnce-1)/s.cfg.AtOnce) * s.cfg.PerPair
		}
	}
	s.say("sweep: %d of %d ranks came; %d pairs (%s) in %d rounds, both directions, %s a pair: about %s",
		len(present), s.cfg.World, sched.Pairs(), s.cfg.Spec, sched.Rounds(), humanDuration(s.cfg.PerPair), humanDuration(took))
	for i := range s.m.Probes {
		s.m.Probes[i].Status = record.StatusRunning
	}
	if err := s.writeManifest(); err != nil {
		return err
	}
	atOnce := s.cfg.AtOnce
	if atOnce <= 0 {
		atOnce = s.cfg.World
	}
	for r := range sched.Rounds() {
		buf = sched.Round(r, buf[:0])
		pairs := make([]Pair, len(buf))
		for i, p := range buf {
			pairs[i] = Pair{idx(p.A), idx(p.B)}
		}
		// Both directions, one after the other: first A toward B, then B
		// toward A, every pair of the round at once.
		for dir := range 2 {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var wg sync.WaitGroup
			slots := make(chan struct{}, atOnce)
			for _, p := range pairs {
				from, to := p.A, p.B
				if dir == 1 {
					from, to = p.B, p.A
				}
				wg.Add(1)
				slots <- struct{}{}
				go func() { defer wg.Done(); s.direction(ctx, r, from, to); <-slots }()
			}
			wg.Wait()
			if s.wErr != nil {
				return s.wErr
			}
		}
		s.say("sweep: round %d of %d done", r+1, sched.Rounds())
	}
	return nil
}

// direction measures from toward to and appends what came back.
func (s *sweepRun) direction(ctx context.Context, round, from, to int) {
	for _, rk := range []int{from, to} {
		if why := s.rankStatus(rk); why != "" {
			s.missing(from, to, "rank "+strconv.Itoa(rk)+" "+why)
			return
		}
	}
	budget := s.cfg.PerPair / 2
	peerData := s.ranks[to].hello.Data
	if to == 0 {
		peerData = s.ranks[from].data0
	}
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	ch := make(chan SweepResult, 8)
	s.results[id] = ch
	s.mu.Unlock()
	defer func() { s.mu.Lock(); delete(s.results, id); s.mu.Unlock() }()
	t := SweepTask{ID: id, Round: round, Peer: to, PeerHost: s.hostOf(to), PeerData: peerData,
		Probes: s.cfg.Probes, Plan: s.cfg.Plan, BudgetNS: budget}
	if from == 0 {
		plan := t.Plan
		plan.Target = peerData
		rs, sts := MeasureToward(ctx, t.Probes, plan, budget, s.cfg.Env)
		s.keep(from, to, rs, sts)
		return
	}
	r := s.ranks[from]
	r.wmu.Lock()
	err := writePair(r.conn, PairMessage{Type: "task", Task: &t}, s.cfg.Timeout)
	r.wmu.Unlock()
	if err != nil {
		s.missing(from, to, "rank "+strconv.Itoa(from)+" did not take its task: "+lostReason(err))
		return
	}
	// Each probe stops at 1.5× its share plus a second; past that and the
	// time to send the records, the direction is given up.
	limit := time.NewTimer(budget + budget/2 + time.Duration(len(t.Probes))*time.Second + s.cfg.Timeout)
	defer limit.Stop()
	var rs []record.Result
	for {
		select {
		case <-ctx.Done():
			s.keep(from, to, rs, nil)
			return
		case <-limit.C:
			s.keep(from, to, rs, nil)
			s.missing(from, to, fmt.Sprintf("past its time (%s for this direction)", humanDuration(budget)))
			return
		case res := <-ch:
			if res.ID == -1 {
				if why := s.rankStatus(from); why != "" {
					s.keep(from, to, rs, nil)
					s.missing(from, to, "rank "+strconv.Itoa(from)+" "+why)
					return
				}
				continue // another rank was lost
			}
			rs = append(rs, res.Results...)
			if res.Final {
				s.keep(from, to, rs, res.Probes)
				return
			}
		}
	}
}

// keep appends one direction's records (Host from, Peer to) and counts
// them in their probes' status; a direction of no record is missing with
// its probes' reasons.
func (s *sweepRun) keep(from, to int, rs []record.Result, sts []record.ProbeStatus) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	fh, th := s.hostOf(from), s.hostOf(to)
	for _, r := range rs {
		r.Host, r.Peer = fh, th
		if s.wErr != nil {
			return
		}
		if err := s.w.Append(r); err != nil {
			s.wErr = err
			return
		}
		for i := range s.m.Probes {
			if s.m.Probes[i].Name == r.Probe {
				s.m.Probes[i].Results++
			}
		}
	}
	if len(rs) == 0 && sts != nil {
		why := "no record"
		if st := s.rankStatus(to); st != "" {
			why = "rank " + strconv.Itoa(to) + " " + st
			sts = nil
		}
		for _, st := range sts {
			if st.Reason != "" {
				why = st.Name + ": " + st.Reason
				break
			}
		}
		s.missingLocked(from, to, why)
	}
	for _, st := range sts {
		if st.Status != record.StatusOK && st.Status != record.StatusPartial {
			for i := range s.m.Probes {
				if s.m.Probes[i].Name == st.Name && s.m.Probes[i].Reason == "" {
					s.m.Probes[i].Reason = fmt.Sprintf("%s toward %s: %s", fh, th, st.Reason)
				}
			}
		}
	}
}

func (s *sweepRun) missing(from, to int, why string) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.missingLocked(from, to, why)
}

func (s *sweepRun) missingLocked(from, to int, why string) {
	sw := s.m.Sweep
	if len(sw.Missing) < record.MaxSweepMissing {
		sw.Missing = append(sw.Missing, record.MissingPair{From: from, To: to, FromHost: s.hostOf(from), ToHost: s.hostOf(to), Reason: oneLine(why)})
	}
}

func (s *sweepRun) writeManifest() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.w.WriteManifest(s.m)
}

// endAll tells every rank still there that the sweep is over.
func (s *sweepRun) endAll(why string) {
	for _, r := range s.ranks[1:] {
		if r == nil || r.conn == nil {
			continue
		}
		r.wmu.Lock()
		writePair(r.conn, PairMessage{Type: "end", Error: why}, s.cfg.Timeout)
		r.wmu.Unlock()
		r.conn.Close()
	}
}

// finish writes the manifest's last state: every rank and its status, the
// missing pairs in order, and the run's status.
func (s *sweepRun) finish(ctx context.Context, runErr error) (*record.Manifest, error) {
	s.writeMu.Lock()
	m := s.m
	m.End = time.Now().UTC()
	m.Sources = nil
	for i, r := range s.ranks {
		st := record.SweepRank{Rank: i, Status: "ok"}
		if r == nil {
			st.Status = "never came"
			if why := s.refused[i]; why != "" {
				st.Status = why
			}
		} else {
			st.Host = r.hello.Host.Hostname
			m.Sources = append(m.Sources, r.hello.Host)
			if r.status != "" {
				st.Status = r.status
			}
		}
		m.Sweep.Ranks = append(m.Sweep.Ranks, st)
	}
	slices.SortFunc(m.Sweep.Missing, func(a, b record.MissingPair) int {
		if a.From != b.From {
			return a.From - b.From
		}
		return a.To - b.To
	})
	counted := m.Counted()
	for i := range m.Probes {
		p := &m.Probes[i]
		p.End = m.End
		switch {
		case p.Results > 0:
			p.Status = record.StatusOK
		case ctx.Err() != nil:
			p.Status = record.StatusInterrupted
		default:
			p.Status = record.StatusFailed
			if p.Reason == "" {
				p.Reason = "no pair measured"
			}
		}
	}
	switch {
	case s.wErr != nil:
		m.Status, m.Reason = record.StatusFailed, fmt.Sprintf("writing the run failed: %s (%d records kept)", oneLine(s.wErr.Error()), counted)
	case ctx.Err() != nil:
		m.Status, m.Reason = record.StatusInterrupted, fmt.Sprintf("interrupted: %d records kept", counted)
	case runErr != nil:
		m.Status, m.Reason = record.StatusFailed, oneLine(runErr.Error())
	case counted == 0:
		m.Status = record.StatusFailed
		if m.Reason == "" {
			m.Reason = "measured nothing: no pair could be measured (the sweep section says why)"
		}
	case len(m.Sweep.Missing) > 0:
		m.Status, m.Reason = record.StatusPartial, fmt.Sprintf("%d pair direction(s) not measured (the sweep section lists them)", len(m.Sweep.Missing))
	default:
		m.Status = record.StatusComplete
	}
	s.writeMu.Unlock()
	if err := s.writeManifest(); err != nil {
		return m, err
	}
	switch {
	case s.wErr != nil:
		return m, s.wErr
	case ctx.Err() != nil:
		return m, ctx.Err()
	}
	return m, runErr
}

// ErrSweepInput marks what is wrong with a sweep's flags (a --pairs value
// or file, no way to find rank 0): bad input, found before anything runs.
var ErrSweepInput = errors.New("sweep")

// SweepRank is one rank's part in a sweep as the command line gives it.
type SweepRank struct {
	// Meeting says how the ranks find rank 0.
	Meeting cluster.Meeting
	// Pairs is the --pairs value; ReadFile reads a pairs file through the
	// bounded reader.
	Pairs    string
	ReadFile func(path string) ([]byte, error)
	// Config is rank 0's (Spec, Lines, Listen, Listening, World and
	// Launcher are filled in); a rank other than 0 uses its Hello, Wait,
	// Timeout and Env.
	Config SweepConfig
}

// Run is rank 0's Sweep (its manifest, with the rendezvous file removed
// after) or another rank's SweepWorker (nil manifest, the tasks it ran).
// An error wrapping ErrSweepInput is the flags'.
func (sr *SweepRank) Run(ctx context.Context) (*record.Manifest, int, error) {
	spec, err := ParsePairs(sr.Pairs)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrSweepInput, err)
	}
	cfg := sr.Config
	if err := CheckBudget(cfg.PerPair/2, len(cfg.Probes)); err != nil {
		return nil, 0, fmt.Errorf("%w: --per-pair (half for each direction) %v", ErrSweepInput, err)
	}
	if n := sr.Meeting.Rank.Size; n > record.MaxSources {
		return nil, 0, fmt.Errorf("%w: a world of %d ranks: a sweep takes at most %d", ErrSweepInput, n, record.MaxSources)
	}
	cfg.Spec, cfg.World, cfg.Launcher = spec, sr.Meeting.Rank.Size, string(sr.Meeting.Rank.From)
	cfg.Hello.Rank, cfg.Hello.World = sr.Meeting.Rank.Rank, sr.Meeting.Rank.Size
	if spec.Kind == "file" {
		b, err := sr.ReadFile(spec.File)
		if err == nil {
			cfg.Lines, err = ParsePairFile(b)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%w: --pairs %s: %v", ErrSweepInput, spec.File, err)
		}
	}
	if sr.Meeting.Rank.Rank != 0 {
		addr, _, err := sr.Meeting.Rank0(ctx)
		if errors.Is(err, cluster.ErrNoPeer) {
			return nil, 0, fmt.Errorf("%w: %v", ErrSweepInput, err)
		} else if err != nil {
			return nil, 0, err
		}
		w := &SweepWorker{Addr: addr, Hello: cfg.Hello, Wait: cfg.Wait, Timeout: cfg.Timeout, Heartbeat: cfg.Heartbeat, Env: cfg.Env}
		n, err := w.Run(ctx)
		return nil, n, err
	}
	cfg.Listen = sr.Meeting.ListenAddr()
	var file string
	if cfg.Listening, file = sr.Meeting.Publisher(); file != "" {
		defer os.Remove(file)
	}
	m, err := Sweep(ctx, cfg)
	return m, 0, err
}
