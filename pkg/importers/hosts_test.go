package importers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// One import of files from several hosts keeps them apart: the manifest
// lists each host with the hardware its own files name, and every record
// of a file of one host names it — whether the output names its host, the
// lines' pdsh prefixes do, or (--host-dir) the file's directory. A run of
// one host's files names no host on its records.
func TestImportKeepsHostsApart(t *testing.T) {
	dir := t.TempDir()
	put := func(rel, fixture string, wrap func(string) string) string {
		raw, err := os.ReadFile(filepath.Join(fixtureDir, fixture))
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		if wrap != nil {
			var b strings.Builder
			for _, l := range strings.SplitAfter(s, "\n") {
				if l != "" {
					b.WriteString(wrap(l))
				}
			}
			s = b.String()
		}
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bw := "perftest/moc-ib_write_bw-a-gbits-client-roce-raw.txt"
	paths := []string{
		put("node01/ib_write_bw.txt", bw, nil),
		put("node01/ibstat.txt", "ibstat/nersc-8hca-mlx5-mixed-ib-eth.txt", nil),
		put("node02/ib_write_bw.txt", "perftest/alibaba-ib_write_bw-b-q4-a-gbits-ionic-pollara-client.txt", nil), // another node's output: a copy would be refused
		put("pdsh.txt", bw, func(l string) string { return "gpu-a17: " + l }),
		// A two-node nccl-tests job names both of its hosts: its records
		// are of several hosts and name none.
		filepath.Join(fixtureDir, "nccl-tests/moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt"),
	}
	files, err := ReadFiles(paths, "")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	m, err := WriteRun(out, files, Meta{Version: "test", Time: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), HostDir: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range m.Sources {
		names = append(names, h.Hostname)
	}
	if want := []string{"node01", "node02", "gpu-a17", "MOC-R4PCC04U37", "MOC-R4PCC04U35"}; !slices.Equal(names, want) {
		t.Fatalf("sources %v, want %v", names, want)
	}
	if n1 := m.Sources[0]; len(n1.NICs) < 8 || !strings.Contains(strings.Join(n1.Notes, " "), "2 imported file(s) of this host alone") {
		t.Errorf("node01 keeps its ibstat's ports and its files: %+v", n1)
	}
	if len(m.Sources[1].NICs) > 1 {
		t.Errorf("node02 holds another host's ports: %+v", m.Sources[1].NICs)
	}
	run, err := ReadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(run.Data.Manifest.Sources); got != 5 {
		t.Fatalf("the manifest read back has %d sources", got)
	}
	count := map[string]int{}
	for _, r := range run.Data.Results {
		count[r.Host]++
	}
	per := files[0].Records()
	if count["node01"] != per || count["node02"] != per || count["gpu-a17"] != per || count[""] != files[4].Records() {
		t.Errorf("records per host %v (each perftest file %d)", count, per)
	}
	// One host's files: no sources, no host on the records.
	one := filepath.Join(t.TempDir(), "one")
	files, _ = ReadFiles(paths[:2], "")
	m, err = WriteRun(one, files, Meta{Time: time.Now(), HostDir: true})
	if err != nil || len(m.Sources) != 0 {
		t.Fatalf("%v: %+v", err, m.Sources)
	}
	if rd, err := record.ReadRun(one); err != nil || rd.Results[0].Host != "" {
		t.Errorf("%v %q", err, rd.Results[0].Host)
	}
}

// An existing empty directory given as the run directory is written into
// (it is replaced by the new run), as measure and report take one.
func TestWriteRunIntoEmptyDir(t *testing.T) {
	files, err := ReadFiles([]string{filepath.Join(fixtureDir, "perftest/moc-ib_write_bw-a-gbits-client-roce-raw.txt")}, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() // exists, empty
	if _, err := WriteRun(dir, files, Meta{Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(dir); err != nil {
		t.Fatal(err)
	}
}
