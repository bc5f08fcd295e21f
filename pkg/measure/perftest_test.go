package measure

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/sysfstest"
	"github.com/gpupath/gpupath/pkg/record"
)

// sharedPerftest is the directory of the shared perftest fixtures.
const sharedPerftest = "../importers/testdata/fixtures/perftest"

// fakePerftest writes a fake perftest tool into dir: run without a host
// argument it is the server (prints the "Waiting for client" banner, waits
// a little, prints the server's output); with one it is the client and
// prints the client's output (the CUDA one when --use_cuda is given), then
// exits with status rc. Every invocation is logged to dir/calls.log. The
// outputs are real ones, the shared fixtures' (sharedPerftest; their sources
// are in SOURCES.md there); no raw ib_write_lat output was found, so the
// latency fake prints ib_read_lat output: the table format is the same.
func fakePerftest(t *testing.T, dir, name, client, cudaClient, server string, rc int) {
	t.Helper()
	abs := func(f string) string {
		if f == "" {
			return "/dev/null"
		}
		p, err := filepath.Abs(filepath.Join(sharedPerftest, f))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	script := fmt.Sprintf(`#!/bin/sh
last=""; cuda=""
for a in "$@"; do last="$a"; case "$a" in --use_cuda=*) cuda=1;; esac; done
echo "%[1]s $*" >> %[2]q
case "$last" in
127.0.0.1|*.*.*.*|peer*)
	if [ -n "$cuda" ]; then
		[ %[3]q = /dev/null ] && { echo "%[1]s: unrecognized option '--use_cuda=0'"; exit 1; }
		cat %[3]q
	else
		cat %[4]q
	fi
	exit %[6]d ;;
*)
	echo "************************************"
	echo "* Waiting for client to connect... *"
	echo "************************************"
	sleep 0.2
	cat %[5]q ;;
esac
`, name, filepath.Join(dir, "calls.log"), abs(cudaClient), abs(client), abs(server), rc)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func fakeCalls(t *testing.T, dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, "calls.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func TestPerftestRunner(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs perftest stand-ins")
	}
	bin := t.TempDir()
	fakePerftest(t, bin, "ib_write_bw", "moc-ib_write_bw-a-gbits-client-roce-raw.txt",
		"dranet-ib_write_bw-use_cuda0-dmabuf-a-gbits-gke-h200.txt", "moc-ib_write_bw-a-gbits-server-side-last-size-only-raw.txt", 0)
	fakePerftest(t, bin, "ib_write_lat", "moc-ib_read_lat-a-client-roce-rdma_cm-tos41-raw.txt",
		"moc-ib_read_lat-a-use_cuda-dmabuf-h100-client-raw.txt", "moc-ib_read_lat-server-side-no-results-raw.txt", 0)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := sysfstest.Write(t, sysfstest.Opts{GPU: true, IB: true, State: "4: ACTIVE", Layer: "Ethernet", Rate: "400 Gb/sec (4X NDR)"})
	p := &PerftestProbe{Env: Env{SysRoot: root}, Timeout: 20 * time.Second}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	res, err := runCollect(t, p, Plan{})
	if err != nil {
		t.Fatal(err)
	}
	// lat and bw, host and GPU memory: 23 rows each.
	if len(res) != 4*23 {
		t.Fatalf("%d records", len(res))
	}
	count := map[string]int{}
	for _, r := range res {
		count[r.Variant+" "+r.Path]++
		if r.Probe != "perftest" || r.Timer != "perftest" || r.Target != "loopback mlx5_0" || r.MedianS <= 0 || r.Bytes <= 0 {
			t.Errorf("bad record %+v", r)
		}
	}
	for _, k := range []string{"ib_write_lat rdma", "ib_write_lat gdr", "ib_write_bw rdma", "ib_write_bw gdr"} {
		if count[k] != 23 {
			t.Errorf("%s: %d records", k, count[k])
		}
	}
	// First latency row: 2 B, t_min 5.40 us, t_typical 5.45 us, 99% 5.70 us.
	lat := res[0]
	if lat.Variant != "ib_write_lat" || lat.Bytes != 2 || lat.MinS != 5.40e-6 || lat.MedianS != 5.45e-6 || lat.P99S != 5.70e-6 ||
		!strings.Contains(lat.Note, "half the round trip") {
		t.Errorf("latency record %+v", lat)
	}
	// Last host bandwidth row: 8 MiB at 232.02 Gb/s average.
	var bw record.Result
	for _, r := range res {
		if r.Variant == "ib_write_bw" && r.Path == "rdma" && r.Bytes == 8388608 {
			bw = r
		}
	}
	if bw.ThroughputBps != 232.02*125e6 || bw.Extra["qps"] != 8 || bw.MedianS != 8388608/(232.02*125e6) {
		t.Errorf("bandwidth record %+v", bw)
	}
	// The command lines: a server and a client per run, the same options on
	// both, --report_gbits for bandwidth only, --use_cuda for GPU memory.
	log := fakeCalls(t, bin)
	if len(log) != 8 {
		t.Fatalf("calls:\n%s", strings.Join(log, "\n"))
	}
	for i := 0; i < len(log); i += 2 {
		srv, cli := log[i], log[i+1]
		if !strings.HasSuffix(cli, " 127.0.0.1") || cli != srv+" 127.0.0.1" {
			t.Errorf("server %q\nclient %q", srv, cli)
		}
		if !strings.Contains(srv, "-d mlx5_0 -i 1 -F -p ") || !strings.Contains(srv, " -a") {
			t.Errorf("options %q", srv)
		}
		if strings.HasPrefix(srv, "ib_write_lat") == strings.Contains(srv, "--report_gbits") {
			t.Errorf("--report_gbits misplaced: %q", srv)
		}
	}
	if !strings.Contains(log[3], "--use_cuda=0") || strings.Contains(log[1], "--use_cuda") {
		t.Errorf("GPU memory runs: %q, %q", log[1], log[3])
	}
	inv := p.Inventory().(*PerftestInventory)
	if inv.Device != "mlx5_0" || len(inv.Runs) != 4 || inv.Runs[1].Memory != "cuda:0" || inv.Runs[1].Rows != 23 {
		t.Errorf("inventory %+v", inv)
	}
}

func TestPerftestSizesAndFailures(t *testing.T) {
	bin := t.TempDir()
	// A client that aborts with a completion error after 65536 B, and a
	// perftest built without CUDA.
	fakePerftest(t, bin, "ib_write_bw", "dranet-ib_write_bw-a-gbits-gke-h200-roce-completion-error.txt", "",
		"moc-ib_write_bw-a-gbits-server-side-last-size-only-raw.txt", 1)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := sysfstest.Write(t, sysfstest.Opts{GPU: true, IB: true, State: "4: ACTIVE", Layer: "Ethernet", Rate: "400 Gb/sec (4X NDR)"})
	p := &PerftestProbe{Env: Env{SysRoot: root}, Tools: []string{"ib_write_bw"}, Timeout: 20 * time.Second}
	res, err := runCollect(t, p, Plan{Sizes: []int64{65536, 1 << 20}, Options: map[string]string{"gid_index": "3"}})
	if err == nil || !strings.Contains(err.Error(), "Completion with error at client") {
		t.Fatalf("err = %v", err)
	}
	// The rows printed before the failure are kept (16 per run, two runs).
	if len(res) != 32 {
		t.Errorf("%d records", len(res))
	}
	inv := p.Inventory().(*PerftestInventory)
	var cudaRuns, failed int
	for _, r := range inv.Runs {
		if r.Memory != "host" {
			cudaRuns++
			if !strings.Contains(r.Err, "without CUDA support") {
				t.Errorf("CUDA run error %q", r.Err)
			}
		} else if r.Err != "" && r.Output != "" {
			failed++
		}
	}
	if cudaRuns != 1 || failed != 2 {
		t.Errorf("runs %+v", inv.Runs)
	}
	log := fakeCalls(t, bin)
	if !strings.Contains(log[0], "-x 3") || !strings.Contains(log[0], "-s 65536") || !strings.Contains(log[2], "-s 1048576") {
		t.Errorf("calls %q", log)
	}
}

func TestPerftestUnavailable(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	root := sysfstest.Write(t, sysfstest.Opts{IB: true, State: "1: DOWN", Layer: "Ethernet", Rate: "400 Gb/sec (4X NDR)"})
	p := &PerftestProbe{Env: Env{SysRoot: root}}
	if err := p.Available(); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "not on PATH") {
		t.Errorf("no tools: %v", err)
	}
	fakePerftest(t, bin, "ib_write_bw", "moc-ib_write_bw-a-gbits-client-roce-raw.txt", "", "", 0)
	p.Tools = []string{"ib_write_bw"}
	_, err := runCollect(t, p, Plan{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no active RDMA port (mlx5_0/1 DOWN)") {
		t.Errorf("port down: %v", err)
	}
	p = &PerftestProbe{Env: Env{SysRoot: sysfstest.Write(t, sysfstest.Opts{})}, Tools: []string{"ib_write_bw"}}
	if _, err := runCollect(t, p, Plan{}); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no RDMA device") {
		t.Errorf("no device: %v", err)
	}
	// A server that never says it is ready, and a context that ends.
	slow := filepath.Join(bin, "ib_write_lat")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p = &PerftestProbe{Env: Env{SysRoot: sysfstest.Write(t, sysfstest.Opts{IB: true, State: "4: ACTIVE", Layer: "InfiniBand", Rate: "200 Gb/sec (4X HDR)"})},
		Tools: []string{"ib_write_lat"}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = p.Run(ctx, Plan{}, func(record.Result) error { return nil })
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("hung server: %v after %v", err, time.Since(start))
	}
}
