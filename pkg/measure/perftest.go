package measure

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpupath/gpupath/pkg/importers/perftest"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

func init() { Register("perftest", func(env Env) Probe { return &PerftestProbe{Env: env} }) }

// PerftestProbe runs the linux-rdma perftest tools (ib_write_lat and
// ib_write_bw by default) when they are on PATH and an RDMA device has an
// active port, and turns their tables into records. In loopback (the
// default target) it starts the server and the client on this host; with
// Plan.Target set to a host it runs the client only, against a server
// started there by hand with the same options (the inventory lists them).
//
// Each tool runs with host memory (path "rdma") and, when an NVIDIA GPU is
// present, again with --use_cuda=<gpu> (path "gdr": the NIC reads and writes
// GPU memory). Without Plan.Sizes a run is one "-a" sweep (2 B to 8 MiB);
// with Plan.Sizes one run per size ("-s N").
//
// Records: one per table row. Bandwidth rows: ThroughputBps is the average
// bandwidth, MedianS = MeanS = P99S the time per message at that rate, MinS
// the time at the peak rate; Extra has peak_Bps, msg_rate, qps. Latency rows:
// MinS, MedianS (perftest's t_typical), MeanS, P99S in seconds, Extra has
// max_s, stdev_s, p999_s. ib_write_lat and ib_send_lat report half the round
// trip, ib_read_lat the whole. Timer is "perftest".
//
// Plan.Options: rdma_dev=mlx5_0, rdma_port=1, gid_index=3 (-x, RoCE),
// use_cuda=0|off (default: GPU 0 when sysfs shows an NVIDIA GPU),
// perftest_port=18515 (TCP port of the exchange; default a free one),
// perftest_args="-n 2000" (more arguments for both sides).
type PerftestProbe struct {
	// Env says which sysfs tree to read and where diagnostics go.
	Env Env
	// Tools to run; nil means ib_write_lat and ib_write_bw.
	Tools []string
	// LookPath finds a tool; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// Timeout bounds one run (server and client); 0 means 3 minutes.
	Timeout time.Duration
	inv     *PerftestInventory
}

// PerftestInventory says what the perftest probe ran.
type PerftestInventory struct {
	Device    string        `json:"device"`
	Port      int           `json:"port"`
	LinkLayer string        `json:"link_layer,omitempty"`
	Runs      []PerftestRun `json:"runs"`
}

// PerftestRun is one client run (and its server, in loopback).
type PerftestRun struct {
	Tool   string   `json:"tool"`
	Memory string   `json:"memory"` // "host" or "cuda:0"
	Client []string `json:"client"` // the command lines
	Server []string `json:"server,omitempty"`
	Rows   int      `json:"rows"`
	Err    string   `json:"error,omitempty"`
	// Output keeps the last lines of the client's output when it failed.
	Output string `json:"output,omitempty"`
}

// Name returns "perftest".
func (p *PerftestProbe) Name() string { return "perftest" }

// Weight is the probe's share of a run's budget (Weighted).
func (p *PerftestProbe) Weight() float64 { return 2 }

// Options are the settings the perftest probe reads from Plan.Options.
func (p *PerftestProbe) Options() []Option {
	return []Option{
		{Name: "rdma_dev", Kind: OptText, Doc: "RDMA device, e.g. mlx5_0 (default: the first with an active port)"},
		{Name: "rdma_port", Kind: OptInt, Doc: "port of the RDMA device (default: its first active one)"},
		{Name: "gid_index", Kind: OptInt, Doc: "GID index for RoCE (-x)"},
		{Name: "use_cuda", Kind: OptInt, Off: true, Doc: "GPU for the gdr runs, or off (default: GPU 0 when sysfs shows an NVIDIA GPU)"},
		{Name: "perftest_port", Kind: OptInt, Doc: "TCP port of perftest's exchange (default: a free one)"},
		{Name: "perftest_args", Kind: OptText, Doc: "more arguments for both sides, e.g. \"-n 2000\""},
	}
}

// Inventory returns the *PerftestInventory of the last Run.
func (p *PerftestProbe) Inventory() any { return p.inv }

func (p *PerftestProbe) logf(format string, args ...any) {
	p.Env.Logf("perftest: "+format, args...)
}

func (p *PerftestProbe) tools() []string {
	if len(p.Tools) > 0 {
		return p.Tools
	}
	return []string{"ib_write_lat", "ib_write_bw"}
}

// found returns the tools on PATH with their paths.
func (p *PerftestProbe) found() (map[string]string, []string) {
	look := p.LookPath
	if look == nil {
		look = exec.LookPath
	}
	paths := map[string]string{}
	var missing []string
	for _, t := range p.tools() {
		if path, err := look(t); err == nil {
			paths[t] = path
		} else {
			missing = append(missing, t)
		}
	}
	return paths, missing
}

// Available checks for the tools and for an RDMA device.
func (p *PerftestProbe) Available() error {
	paths, missing := p.found()
	if len(paths) == 0 {
		return Unavailable("perftest not installed (%s not on PATH)", strings.Join(missing, ", "))
	}
	return rdmaPresent(p.Env)
}

// pickPort chooses the RDMA device and port: the named one, or the first
// active port.
func pickPort(devs []topo.RDMADevice, name string, port int) (topo.RDMADevice, topo.RDMAPort, error) {
	var seen []string
	for _, d := range devs {
		if name != "" && d.Name != name {
			continue
		}
		for _, pt := range d.Ports {
			if port != 0 && pt.Port != port {
				continue
			}
			if pt.Active() {
				return d, pt, nil
			}
			seen = append(seen, fmt.Sprintf("%s/%d %s", d.Name, pt.Port, pt.State))
		}
	}
	if name != "" && len(seen) == 0 {
		return topo.RDMADevice{}, topo.RDMAPort{}, Unavailable("no RDMA device %s (port %d)", name, port)
	}
	return topo.RDMADevice{}, topo.RDMAPort{}, Unavailable("no active RDMA port (%s)", strings.Join(seen, ", "))
}

// Run runs the tools; see the type's documentation.
func (p *PerftestProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	paths, missing := p.found()
	if len(paths) == 0 {
		return Unavailable("perftest not installed (%s not on PATH)", strings.Join(missing, ", "))
	}
	if err := rdmaPresent(p.Env); err != nil {
		return err
	}
	r := topo.Reader{Root: p.Env.SysRoot}
	devs, _, err := r.RDMADevices()
	if err != nil {
		return err
	}
	opt := plan.Options
	wantPort, _ := strconv.Atoi(opt["rdma_port"])
	dev, port, err := pickPort(devs, opt["rdma_dev"], wantPort)
	if err != nil {
		return err
	}
	p.inv = &PerftestInventory{Device: dev.Name, Port: port.Port, LinkLayer: port.LinkLayer}
	p.logf("device %s port %d (%s, %s); tools %v", dev.Name, port.Port, port.LinkLayer, port.Rate, p.tools())

	mems := []string{"host"}
	switch c := opt["use_cuda"]; c {
	case "off", "no", "none":
	case "":
		if sys, err := r.Read(); err == nil && len(sys.GPUs()) > 0 {
			mems = append(mems, "cuda:0")
		}
	default:
		if _, err := strconv.Atoi(c); err != nil {
			return fmt.Errorf("perftest: option use_cuda=%s: want a GPU index or off", c)
		}
		mems = append(mems, "cuda:"+c)
	}
	var sizeRuns [][]string
	if len(plan.Sizes) == 0 {
		sizeRuns = [][]string{{"-a"}}
	} else {
		for _, n := range plan.Sizes {
			sizeRuns = append(sizeRuns, []string{"-s", strconv.FormatInt(n, 10)})
		}
	}
	target := plan.Target
	if target == "" || target == "loopback" {
		target = ""
	}
	var firstErr error
	for _, tool := range p.tools() {
		path, ok := paths[tool]
		if !ok {
			p.logf("%s not on PATH: skipped", tool)
			continue
		}
		for _, mem := range mems {
			for _, sz := range sizeRuns {
				if err := ctx.Err(); err != nil {
					return err
				}
				run, rep, err := p.runOne(ctx, tool, path, mem, dev.Name, port.Port, sz, target, opt)
				if rep != nil {
					run.Rows = rep.Rows()
					if eerr := p.emitReport(tool, mem, dev.Name, target, rep, emit); eerr != nil {
						return eerr
					}
				}
				if err != nil {
					run.Err = err.Error()
					p.logf("%s %s: %v", tool, mem, err)
					if mem != "host" && cudaUnsupported(run.Output) {
						run.Err = "this perftest was built without CUDA support: " + run.Err
						p.inv.Runs = append(p.inv.Runs, run)
						break // no other size will do better
					}
					if firstErr == nil {
						firstErr = fmt.Errorf("perftest: %s (%s): %w", tool, mem, err)
					}
				}
				p.inv.Runs = append(p.inv.Runs, run)
			}
		}
	}
	return firstErr
}

// cudaUnsupported recognises the answer of a perftest built without CUDA.
func cudaUnsupported(out string) bool {
	for _, s := range []string{"unrecognized option", "invalid option", "CUDA is not", "not compiled with CUDA", "use_cuda"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

func (p *PerftestProbe) args(tool, dev string, port int, tcpPort int, sz []string, mem string, opt map[string]string) []string {
	a := []string{"-d", dev, "-i", strconv.Itoa(port), "-F", "-p", strconv.Itoa(tcpPort)}
	if g := opt["gid_index"]; g != "" {
		a = append(a, "-x", g)
	}
	if strings.HasSuffix(tool, "_bw") {
		a = append(a, "--report_gbits")
	}
	a = append(a, sz...)
	if gpu, ok := strings.CutPrefix(mem, "cuda:"); ok {
		a = append(a, "--use_cuda="+gpu)
	}
	if extra := strings.Fields(opt["perftest_args"]); len(extra) > 0 {
		a = append(a, extra...)
	}
	return a
}

func perftestFreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// runOne runs one client (and its server in loopback) and parses the
// client's output. A report is returned whenever there was output to parse,
// also with an error, so that rows measured before a failure are kept.
func (p *PerftestProbe) runOne(ctx context.Context, tool, path, mem, dev string, port int, sz []string, target string, opt map[string]string) (PerftestRun, *perftest.Report, error) {
	run := PerftestRun{Tool: tool, Memory: mem}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tcpPort := 0
	if s := opt["perftest_port"]; s != "" {
		tcpPort, _ = strconv.Atoi(s)
	}
	if tcpPort == 0 {
		var err error
		if tcpPort, err = perftestFreePort(); err != nil {
			return run, nil, err
		}
	}
	args := p.args(tool, dev, port, tcpPort, sz, mem, opt)
	var srv *perftestServer
	host := target
	if host == "" {
		host = "127.0.0.1"
		run.Server = append([]string{tool}, args...)
		var err error
		srv, err = startPerftestServer(rctx, path, args)
		if err != nil {
			return run, nil, err
		}
		defer srv.stop()
		if err := srv.ready(rctx, 15*time.Second); err != nil {
			run.Output = tailLines(srv.output(), 20)
			return run, nil, err
		}
	}
	cargs := append(append([]string(nil), args...), host)
	run.Client = append([]string{tool}, cargs...)
	p.logf("running %s", strings.Join(run.Client, " "))
	cmd := exec.CommandContext(rctx, path, cargs...)
	cmd.WaitDelay = 5 * time.Second // do not wait forever on a pipe a child process keeps open
	out, runErr := cmd.CombinedOutput()
	if rctx.Err() != nil && ctx.Err() == nil {
		runErr = fmt.Errorf("timed out after %s: %w", humanDuration(timeout), rctx.Err())
	}
	rep, perr := perftest.ParseBytes(out)
	if perr != nil {
		rep = nil
	}
	var err error
	switch {
	case runErr != nil:
		err = fmt.Errorf("%s: %w", strings.Join(run.Client, " "), runErr)
		if rep != nil && rep.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, rep.Err())
		}
	case rep == nil:
		err = fmt.Errorf("%s printed no perftest output", tool)
	case rep.Err() != nil:
		err = rep.Err()
	case rep.Rows() == 0:
		err = fmt.Errorf("%s printed no result table", tool)
	}
	if err != nil {
		run.Output = tailLines(string(out), 20)
	}
	if srv != nil {
		srv.wait(5 * time.Second)
	}
	return run, rep, err
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// perftestServer is the server side of a loopback run.
type perftestServer struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	out   bytes.Buffer
	up    chan struct{} // closed when the server says it waits for the client
	done  chan struct{} // closed when the process has exited
	once  sync.Once
	err   error
	ended bool
}

func startPerftestServer(ctx context.Context, path string, args []string) (*perftestServer, error) {
	s := &perftestServer{up: make(chan struct{}), done: make(chan struct{})}
	s.cmd = exec.CommandContext(ctx, path, args...)
	s.cmd.WaitDelay = 5 * time.Second
	pr, pw := io.Pipe()
	s.cmd.Stdout, s.cmd.Stderr = pw, pw
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.out.WriteString(line + "\n")
			s.mu.Unlock()
			// "* Waiting for client to connect... *", or with rdma_cm
			// "Waiting for client rdma_cm QP to connect".
			if strings.Contains(line, "Waiting for client") {
				s.once.Do(func() { close(s.up) })
			}
		}
	}()
	go func() {
		err := s.cmd.Wait()
		pw.Close()
		s.mu.Lock()
		s.err, s.ended = err, true
		s.mu.Unlock()
		close(s.done)
	}()
	return s, nil
}

func (s *perftestServer) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// ready waits until the server listens.
func (s *perftestServer) ready(ctx context.Context, limit time.Duration) error {
	select {
	case <-s.up:
		return nil
	case <-s.done:
		return fmt.Errorf("perftest server exited before the client connected: %v", s.err)
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(limit):
		return errors.New("perftest server did not say it was waiting for the client")
	}
}

// wait gives the server time to finish after the client, then kills it.
func (s *perftestServer) wait(limit time.Duration) {
	select {
	case <-s.done:
	case <-time.After(limit):
		s.stop()
	}
}

func (s *perftestServer) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	if s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
	<-s.done
}

func (p *PerftestProbe) emitReport(tool, mem, dev, target string, rep *perftest.Report, emit func(record.Result) error) error {
	path := "rdma"
	if mem != "host" {
		path = "gdr"
	}
	tgt := "loopback " + dev
	if target != "" {
		tgt = target + " " + dev
	}
	now := time.Now()
	base := record.Result{Probe: "perftest", Variant: tool, Path: path, Target: tgt, Timer: "perftest", Time: now}
	for _, row := range rep.Bandwidth {
		r := base
		r.Bytes, r.Iterations = row.Bytes, int(row.Iterations)
		r.ThroughputBps = row.AvgBps
		if row.AvgBps > 0 {
			t := float64(row.Bytes) / row.AvgBps
			r.MedianS, r.MeanS, r.P99S = t, t, t
		}
		if row.PeakBps > 0 {
			r.MinS = float64(row.Bytes) / row.PeakBps
		}
		r.Extra = map[string]float64{"peak_Bps": row.PeakBps, "msg_rate": row.MsgRate, "qps": float64(rep.QPs)}
		r.Note = fmt.Sprintf("%s, %s memory; times are bytes over the average (peak for min) bandwidth", rep.Test, mem)
		if err := emit(r); err != nil {
			return err
		}
	}
	for _, row := range rep.Latency {
		r := base
		r.Bytes, r.Iterations = row.Bytes, int(row.Iterations)
		r.MinS, r.MedianS, r.MeanS, r.P99S = row.Min, row.Typical, row.Avg, row.P99
		if row.Typical > 0 {
			r.ThroughputBps = float64(row.Bytes) / row.Typical
		}
		r.Extra = map[string]float64{"max_s": row.Max, "stdev_s": row.Stdev, "p999_s": row.P999}
		r.Note = fmt.Sprintf("%s, %s memory; median is t_typical", rep.Test, mem)
		if !strings.Contains(tool, "read") {
			r.Note += "; one way (half the round trip)"
		}
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}
