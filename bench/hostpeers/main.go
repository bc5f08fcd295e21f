// Command hostpeers measures, in one run, gpupath's TCP probe beside the
// established tools on loopback and prints the ratios:
//
//   - streaming goodput at 128 KiB writes vs iperf3 (-l 128K), want ≥ 0.9;
//   - ping-pong median one-way latency at 64 B vs sockperf ping-pong --tcp
//     -m 64, want ≤ 1.15;
//   - CPU cost per byte of the stream vs what iperf3 reports for itself.
//
// The tools and the probe run one after the other, never at the same time
// (the machine may have two cores), in alternating order over several
// rounds; the ratios are of the medians over the rounds. It writes its
// result to bench/results. Run it with bench/host_peers.sh.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/importers/iperf3"
	"github.com/gpupath/gpupath/pkg/importers/sockperf"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// round is what one round measured.
type round struct {
	Order string `json:"order"`
	// Iperf3Rate is iperf3's receiver goodput, bytes/s; Iperf3CPUPerByte
	// its host+remote CPU seconds per received byte.
	Iperf3Rate       float64 `json:"iperf3_rate_Bps"`
	Iperf3CPUPerByte float64 `json:"iperf3_cpu_s_per_byte"`
	Iperf3HostCPU    float64 `json:"iperf3_host_cpu_percent"`
	Iperf3RemoteCPU  float64 `json:"iperf3_remote_cpu_percent"`
	// OursRateMedian is the probe's record (chunk / median chunk time),
	// OursRateMean the mean over the timed chunks (bytes / total time).
	OursRateMedian float64 `json:"ours_rate_median_Bps"`
	OursRateMean   float64 `json:"ours_rate_mean_Bps"`
	OursCPUPerByte float64 `json:"ours_cpu_s_per_byte"`
	OursCPUClient  float64 `json:"ours_cpu_client_s_per_byte"`
	OursCPUServer  float64 `json:"ours_cpu_server_s_per_byte"`
	// Latencies are one-way (half round trip) medians, seconds.
	SockperfP50 float64 `json:"sockperf_p50_s"`
	SockperfAvg float64 `json:"sockperf_avg_s"`
	OursP50     float64 `json:"ours_p50_s"`
	OursMean    float64 `json:"ours_mean_s"`
	// The same two measurements with the server in its own process
	// (gpupath serve), as iperf3's and sockperf's servers are.
	Ours2ProcRateMean   float64 `json:"ours_2proc_rate_mean_Bps"`
	Ours2ProcRateMedian float64 `json:"ours_2proc_rate_median_Bps"`
	Ours2ProcCPUPerByte float64 `json:"ours_2proc_cpu_s_per_byte"`
	Ours2ProcP50        float64 `json:"ours_2proc_p50_s"`
}

type report struct {
	Date     time.Time          `json:"date"`
	Host     record.Host        `json:"host"`
	Tools    map[string]string  `json:"tools"`
	Duration float64            `json:"duration_s"`
	Rounds   []round            `json:"rounds"`
	Medians  round              `json:"medians"`
	Ratios   map[string]float64 `json:"ratios"`
	Pass     map[string]bool    `json:"pass"`
}

func main() {
	rounds := flag.Int("rounds", 3, "rounds of the four measurements")
	dur := flag.Duration("duration", 5*time.Second, "length of each measurement")
	outDir := flag.String("out", "bench/results", "directory for the result files")
	flag.Parse()
	if err := run(*rounds, *dur, *outDir); err != nil {
		fmt.Fprintln(os.Stderr, "hostpeers:", err)
		os.Exit(1)
	}
}

// out is where the report goes: stdout and the text result file.
var (
	log bytes.Buffer
	out = io.MultiWriter(os.Stdout, &log)
)

func run(rounds int, dur time.Duration, outDir string) error {
	for _, tool := range []string{"iperf3", "sockperf"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not installed (apt-get install %s)", tool, tool)
		}
	}
	tmp, err := os.MkdirTemp("", "hostpeers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	gpupathBin = filepath.Join(tmp, "gpupath")
	if b, err := exec.Command("go", "build", "-o", gpupathBin, "./cmd/gpupath").CombinedOutput(); err != nil {
		return fmt.Errorf("building gpupath: %v: %s", err, b)
	}
	rep := report{Date: time.Now().UTC(), Host: measure.ReadHost("/"), Duration: dur.Seconds(), Tools: map[string]string{
		"iperf3":   firstLine("iperf3", "--version"),
		"sockperf": strings.TrimPrefix(firstLine("sockperf", "--version"), "sockperf, "),
		"gpupath":  "tcp probe of this tree, " + runtime.Version(),
	}}
	fmt.Fprintf(out, "host %s: %s, %d CPUs, kernel %s\n", rep.Host.Hostname, rep.Host.CPUModel, rep.Host.CPUs, rep.Host.Kernel)
	fmt.Fprintf(out, "tools: %s; sockperf %s; %s\n", rep.Tools["iperf3"], rep.Tools["sockperf"], rep.Tools["gpupath"])
	fmt.Fprintf(out, "%d rounds of %v each; the tools and the probe run one after the other, never together\n\n", rounds, dur)
	for i := 0; i < rounds; i++ {
		var r round
		steps := []struct {
			name string
			f    func(*round, time.Duration) error
		}{{"iperf3", iperfStream}, {"ours-stream", oursStream}, {"ours-2proc-stream", ours2ProcStream},
			{"sockperf", sockperfPingPong}, {"ours-pingpong", oursPingPong}, {"ours-2proc-pingpong", ours2ProcPingPong}}
		if i%2 == 1 { // alternate who goes first
			steps = []struct {
				name string
				f    func(*round, time.Duration) error
			}{steps[1], steps[2], steps[0], steps[4], steps[5], steps[3]}
		}
		var names []string
		for _, s := range steps {
			names = append(names, s.name)
			if err := s.f(&r, dur); err != nil {
				return fmt.Errorf("round %d, %s: %w", i+1, s.name, err)
			}
		}
		r.Order = strings.Join(names, ",")
		rep.Rounds = append(rep.Rounds, r)
		fmt.Fprintf(out, "round %d (%s):\n", i+1, r.Order)
		fmt.Fprintf(out, "  stream 128KiB: iperf3 %s, ours %s median / %s mean  -> %.3f (mean)\n",
			gbit(r.Iperf3Rate), gbit(r.OursRateMedian), gbit(r.OursRateMean), r.OursRateMean/r.Iperf3Rate)
		fmt.Fprintf(out, "  stream 128KiB, server in its own process: ours %s mean  -> %.3f\n",
			gbit(r.Ours2ProcRateMean), r.Ours2ProcRateMean/r.Iperf3Rate)
		fmt.Fprintf(out, "  ping-pong 64B: sockperf p50 %s, ours p50 %s  -> %.3f; server in its own process %s -> %.3f\n",
			us(r.SockperfP50), us(r.OursP50), r.OursP50/r.SockperfP50, us(r.Ours2ProcP50), r.Ours2ProcP50/r.SockperfP50)
		fmt.Fprintf(out, "  CPU per byte:  iperf3 %.3g ns, ours %.3g ns  -> %.3f\n",
			r.Iperf3CPUPerByte*1e9, r.OursCPUPerByte*1e9, r.OursCPUPerByte/r.Iperf3CPUPerByte)
	}
	m := &rep.Medians
	med := func(f func(round) float64) float64 {
		v := make([]float64, len(rep.Rounds))
		for i, r := range rep.Rounds {
			v[i] = f(r)
		}
		sort.Float64s(v)
		return stats.Quantile(v, 0.5)
	}
	m.Iperf3Rate = med(func(r round) float64 { return r.Iperf3Rate })
	m.Iperf3CPUPerByte = med(func(r round) float64 { return r.Iperf3CPUPerByte })
	m.Iperf3HostCPU = med(func(r round) float64 { return r.Iperf3HostCPU })
	m.Iperf3RemoteCPU = med(func(r round) float64 { return r.Iperf3RemoteCPU })
	m.OursRateMedian = med(func(r round) float64 { return r.OursRateMedian })
	m.OursRateMean = med(func(r round) float64 { return r.OursRateMean })
	m.OursCPUPerByte = med(func(r round) float64 { return r.OursCPUPerByte })
	m.OursCPUClient = med(func(r round) float64 { return r.OursCPUClient })
	m.OursCPUServer = med(func(r round) float64 { return r.OursCPUServer })
	m.SockperfP50 = med(func(r round) float64 { return r.SockperfP50 })
	m.SockperfAvg = med(func(r round) float64 { return r.SockperfAvg })
	m.OursP50 = med(func(r round) float64 { return r.OursP50 })
	m.OursMean = med(func(r round) float64 { return r.OursMean })
	m.Ours2ProcRateMean = med(func(r round) float64 { return r.Ours2ProcRateMean })
	m.Ours2ProcRateMedian = med(func(r round) float64 { return r.Ours2ProcRateMedian })
	m.Ours2ProcCPUPerByte = med(func(r round) float64 { return r.Ours2ProcCPUPerByte })
	m.Ours2ProcP50 = med(func(r round) float64 { return r.Ours2ProcP50 })
	rep.Ratios = map[string]float64{
		"stream_mean_vs_iperf3":      m.OursRateMean / m.Iperf3Rate,
		"stream_median_vs_iperf3":    m.OursRateMedian / m.Iperf3Rate,
		"stream_2proc_vs_iperf3":     m.Ours2ProcRateMean / m.Iperf3Rate,
		"pingpong_p50_vs_sockperf":   m.OursP50 / m.SockperfP50,
		"pingpong_2proc_vs_sockperf": m.Ours2ProcP50 / m.SockperfP50,
		"pingpong_mean_vs_sockperf":  m.OursMean / m.SockperfAvg,
		"cpu_per_byte_vs_iperf3":     m.OursCPUPerByte / m.Iperf3CPUPerByte,
		"cpu_2proc_vs_iperf3":        m.Ours2ProcCPUPerByte / m.Iperf3CPUPerByte,
	}
	within := func(k string, lo, hi float64) bool { return rep.Ratios[k] >= lo && rep.Ratios[k] <= hi }
	rep.Pass = map[string]bool{
		"stream ≥ 0.9 × iperf3": within("stream_mean_vs_iperf3", 0.9, math.Inf(1)) &&
			within("stream_2proc_vs_iperf3", 0.9, math.Inf(1)),
		"ping-pong ≤ 1.15 × sockperf": within("pingpong_p50_vs_sockperf", 0, 1.15) &&
			within("pingpong_2proc_vs_sockperf", 0, 1.15),
		"CPU/byte within 0.5–2 × iperf3": within("cpu_per_byte_vs_iperf3", 0.5, 2) &&
			within("cpu_2proc_vs_iperf3", 0.5, 2),
	}
	var sum bytes.Buffer
	fmt.Fprintf(&sum, "\nmedians over %d rounds:\n", rounds)
	fmt.Fprintf(&sum, "  stream, 128KiB writes:  iperf3 %s (receiver)  ours %s (mean of timed chunks), %s (median, as the probe records)\n",
		gbit(m.Iperf3Rate), gbit(m.OursRateMean), gbit(m.OursRateMedian))
	fmt.Fprintf(&sum, "      server in its own process (gpupath serve): ours %s (mean)\n", gbit(m.Ours2ProcRateMean))
	fmt.Fprintf(&sum, "      ratio ours/iperf3 = %.3f (mean), %.3f (median); own-process server %.3f   [want >= 0.9 for both]  %s\n",
		rep.Ratios["stream_mean_vs_iperf3"], rep.Ratios["stream_median_vs_iperf3"], rep.Ratios["stream_2proc_vs_iperf3"], verdict(rep.Pass["stream ≥ 0.9 × iperf3"]))
	fmt.Fprintf(&sum, "  ping-pong, 64B, one-way (half round trip): sockperf p50 %s  ours p50 %s (avg %s vs mean %s)\n",
		us(m.SockperfP50), us(m.OursP50), us(m.SockperfAvg), us(m.OursMean))
	fmt.Fprintf(&sum, "      server in its own process (gpupath serve): ours p50 %s\n", us(m.Ours2ProcP50))
	fmt.Fprintf(&sum, "      ratio ours/sockperf = %.3f (p50); own-process server %.3f   [want <= 1.15 for both]  %s\n",
		rep.Ratios["pingpong_p50_vs_sockperf"], rep.Ratios["pingpong_2proc_vs_sockperf"], verdict(rep.Pass["ping-pong ≤ 1.15 × sockperf"]))
	fmt.Fprintf(&sum, "  CPU per byte streamed:  iperf3 %.3g ns/B (client %.1f%% + server %.1f%% of one CPU over the test, per received byte)\n",
		m.Iperf3CPUPerByte*1e9, m.Iperf3HostCPU, m.Iperf3RemoteCPU)
	fmt.Fprintf(&sum, "                          ours   %.3g ns/B (sender thread %.3g + receiver thread %.3g, RUSAGE_THREAD, per byte)\n",
		m.OursCPUPerByte*1e9, m.OursCPUClient*1e9, m.OursCPUServer*1e9)
	fmt.Fprintf(&sum, "                          ours, own-process server %.3g ns/B (the server reports its thread's CPU)\n", m.Ours2ProcCPUPerByte*1e9)
	fmt.Fprintf(&sum, "      ratio ours/iperf3 = %.3f; own-process server %.3f   [consistent: 0.5..2]  %s\n",
		rep.Ratios["cpu_per_byte_vs_iperf3"], rep.Ratios["cpu_2proc_vs_iperf3"], verdict(rep.Pass["CPU/byte within 0.5–2 × iperf3"]))
	sum.WriteString(`
How the CPU figures compare: iperf3 reports cpu_utilization_percent, each
process's user+system time from getrusage(RUSAGE_SELF) divided by the test's
wall time; times the test's seconds it is CPU-seconds, divided by the bytes
received it is CPU-seconds per byte, client and server added. The probe takes
getrusage(RUSAGE_THREAD) of its sending and its receiving thread over the
same kind of transfer and divides by the bytes. Both count the kernel work
the kernel charges to the sending and receiving tasks (on loopback the
receive softirq mostly runs in the sender's system call, in both tools);
neither counts softirq work charged to other tasks (ksoftirqd) or idle
CPUs. So the two should agree in order of magnitude, not to the percent:
iperf3 also counts its select() loop, timers and reporting, the probe its
acknowledgements (one 8-byte reply per ~50 ms chunk); and CPU per byte falls
as throughput rises (more bytes per wake-up), so when the two tools run at
different rates (see the rounds) their per-byte costs differ for that reason
alone. "Consistent" here means within a factor of two either way: an
accounting error (a missing end, user time only, a double count) would show
as a factor of two or more (a missing end halves it, user time alone
cuts it tenfold).
`)
	fmt.Fprint(out, sum.String())

	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(outDir, fmt.Sprintf("host_peers-%s-%s", rep.Date.Format("20060102"), rep.Host.Hostname))
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", append(js, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nwrote %s.json and %s.txt\n", base, base)
	if err := os.WriteFile(base+".txt", log.Bytes(), 0o644); err != nil {
		return err
	}
	for _, ok := range rep.Pass {
		if !ok {
			return fmt.Errorf("a ratio missed its target (see above)")
		}
	}
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

func gbit(bps float64) string { return units.Rate(bps).CompactBits() }
func us(s float64) string     { return fmt.Sprintf("%.2fus", s*1e6) }

func firstLine(name string, args ...string) string {
	out, _ := exec.Command(name, args...).CombinedOutput()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// iperfStream runs an iperf3 server (one test) and client on loopback with
// 128 KiB writes, leaving out the first second (slow start).
func iperfStream(r *round, dur time.Duration) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur+30*time.Second)
	defer cancel()
	srv := exec.CommandContext(ctx, "iperf3", "-s", "-1", "--forceflush", "-p", strconv.Itoa(port), "-B", "127.0.0.1")
	out, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Wait()
	defer srv.Process.Kill()
	if err := waitFor(out, "Server listening", 5*time.Second); err != nil {
		return fmt.Errorf("iperf3 server: %w", err)
	}
	go io.Copy(io.Discard, out)
	secs := strconv.Itoa(int(math.Ceil(dur.Seconds())))
	b, err := exec.CommandContext(ctx, "iperf3", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", secs, "-O", "1", "-l", "128K", "-J").Output()
	if err != nil {
		return fmt.Errorf("iperf3 client: %w", err)
	}
	res, err := iperf3.ParseJSON(b)
	if err != nil {
		return err
	}
	r.Iperf3Rate = res.ReceivedRate
	h, rm := res.CPUSecondsPerByte()
	r.Iperf3CPUPerByte = h + rm
	r.Iperf3HostCPU, r.Iperf3RemoteCPU = res.CPU.HostTotal, res.CPU.RemoteTotal
	return nil
}

// waitFor reads lines from r until one contains s.
func waitFor(r io.Reader, s string, limit time.Duration) error {
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if strings.Contains(sc.Text(), s) {
				found <- nil
				return
			}
		}
		found <- fmt.Errorf("ended without %q", s)
	}()
	select {
	case err := <-found:
		return err
	case <-time.After(limit):
		return fmt.Errorf("no %q within %v", s, limit)
	}
}

// sockperfPingPong runs a sockperf TCP server and a 64-byte ping-pong client.
func sockperfPingPong(r *round, dur time.Duration) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), dur+30*time.Second)
	defer cancel()
	srv := exec.CommandContext(ctx, "sockperf", "server", "--tcp", "-i", "127.0.0.1", "-p", strconv.Itoa(port))
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Wait()
	defer srv.Process.Kill()
	// Wait until the server listens (a probe connection is harmless to it).
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sockperf server not listening: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	secs := strconv.Itoa(int(math.Ceil(dur.Seconds())))
	b, err := exec.CommandContext(ctx, "sockperf", "ping-pong", "--tcp", "-i", "127.0.0.1", "-p", strconv.Itoa(port), "-m", "64", "-t", secs).CombinedOutput()
	if err != nil {
		return fmt.Errorf("sockperf client: %w: %s", err, lastLine(b))
	}
	res, err := sockperf.ParseLatency(b)
	if err != nil {
		return err
	}
	p50, ok := res.Median()
	if !ok {
		return fmt.Errorf("sockperf printed no median")
	}
	r.SockperfP50, r.SockperfAvg = p50, res.AvgLatency
	return nil
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// runProbe runs gpupath's tcp probe on loopback for one size and variant,
// for the whole duration (a tolerance no median meets).
func runProbe(target, variant string, size int64, dur time.Duration) (record.Result, error) {
	p, err := measure.New("tcp", measure.Env{})
	if err != nil {
		return record.Result{}, err
	}
	plan := measure.Plan{Budget: dur, PerSize: dur, Sizes: []int64{size}, Target: target, Tolerance: 1e-12,
		Options: map[string]string{"variants": variant}}
	var rs []record.Result
	err = p.Run(context.Background(), plan, func(r record.Result) error { rs = append(rs, r); return nil })
	if err != nil {
		return record.Result{}, err
	}
	if len(rs) != 1 {
		return record.Result{}, fmt.Errorf("%d records", len(rs))
	}
	return rs[0], nil
}

func oursStream(r *round, dur time.Duration) error {
	rec, err := runProbe("loopback", "stream", 128<<10, dur)
	if err != nil {
		return err
	}
	r.OursRateMedian = rec.ThroughputBps
	r.OursRateMean = float64(rec.Bytes) / rec.MeanS
	r.OursCPUPerByte = rec.Extra["cpu_s_per_byte"]
	r.OursCPUClient = rec.Extra["cpu_client_s_per_byte"]
	r.OursCPUServer = rec.Extra["cpu_server_s_per_byte"]
	return nil
}

func oursPingPong(r *round, dur time.Duration) error {
	rec, err := runProbe("loopback", "pingpong", 64, dur)
	if err != nil {
		return err
	}
	r.OursP50, r.OursMean = rec.MedianS, rec.MeanS
	return nil
}

// gpupathBin is the gpupath command built from this tree, for the
// own-process server.
var gpupathBin string

// withServe runs f against a `gpupath serve` process on loopback.
func withServe(f func(target string) error) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	srv := exec.Command(gpupathBin, "serve", "--listen", addr, "--for", "10m")
	o, err := srv.StdoutPipe()
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	defer srv.Wait()
	defer srv.Process.Signal(os.Interrupt)
	if err := waitFor(o, "listening on", 5*time.Second); err != nil {
		return fmt.Errorf("gpupath serve: %w", err)
	}
	return f(addr)
}

func ours2ProcStream(r *round, dur time.Duration) error {
	return withServe(func(target string) error {
		rec, err := runProbe(target, "stream", 128<<10, dur)
		if err != nil {
			return err
		}
		r.Ours2ProcRateMedian = rec.ThroughputBps
		r.Ours2ProcRateMean = float64(rec.Bytes) / rec.MeanS
		r.Ours2ProcCPUPerByte = rec.Extra["cpu_s_per_byte"]
		return nil
	})
}

func ours2ProcPingPong(r *round, dur time.Duration) error {
	return withServe(func(target string) error {
		rec, err := runProbe(target, "pingpong", 64, dur)
		if err != nil {
			return err
		}
		r.Ours2ProcP50 = rec.MedianS
		return nil
	})
}
