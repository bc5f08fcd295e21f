package record

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const runningManifest = `{"format":1,"tool":"gpupath","status":"running","start":"2026-11-29T12:00:00Z","results":"results.jsonl","probes":[{"name":"tcp","status":"running","results":0}]}`

// A manifest left at running, with records the manifest never counted and
// no process holding the writer's lock: the reader says interrupted.
func TestReadRunDerivesInterrupted(t *testing.T) {
	b, _ := encode(t, sampleResults(3))
	rd, err := ReadRun(writeRunDir(t, runningManifest, b))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Manifest.Status != StatusInterrupted || rd.Written != StatusRunning {
		t.Errorf("status %s (written %s), want interrupted", rd.Manifest.Status, rd.Written)
	}
	if want := "found running with 3 record(s) (the manifest counts 0); the writer died"; rd.Derived != want {
		t.Errorf("Derived %q, want %q", rd.Derived, want)
	}
}

// While a Writer is open (the runner is alive), running stays running.
func TestReadRunLiveWriterStaysRunning(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Format: 1, Tool: "gpupath", Status: StatusRunning, Start: time.Now(), Results: ResultsFile, Probes: []ProbeStatus{{Name: "tcp", Status: StatusRunning, Results: 1}}}
	if err := w.WriteManifest(m); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(sampleResults(1)[0]); err != nil {
		t.Fatal(err)
	}
	rd, err := ReadRun(dir)
	if err != nil || rd.Manifest.Status != StatusRunning || rd.Derived != "" {
		t.Fatalf("live run: %v, status %s, derived %q", err, rd.Manifest.Status, rd.Derived)
	}
	if _, err := Create(filepath.Join(dir)); !errors.Is(err, ErrRunExists) {
		t.Errorf("second writer: %v", err)
	}
	w.Close()
	rd, err = ReadRun(dir)
	if err != nil || rd.Manifest.Status != StatusInterrupted {
		t.Fatalf("after the writer went: %v, status %s", err, rd.Manifest.Status)
	}
}

// A manifest.json.tmp left behind is never read; a failed write removes it.
func TestManifestTmp(t *testing.T) {
	dir := writeRunDir(t, strings.Replace(runningManifest, "running", "complete", 1), nil)
	os.WriteFile(filepath.Join(dir, ManifestFile+".tmp"), []byte("{half"), 0o644)
	if _, err := ReadRun(dir); err != nil {
		t.Errorf("leftover tmp: %v", err)
	}
	old := writeFile
	defer func() { writeFile = old }()
	writeFile = func(p string, b []byte) error {
		os.WriteFile(p, b[:len(b)/2], 0o644)
		return syscall.ENOSPC
	}
	// The temporary copy fails for lack of space; the manifest that exists
	// is then written over in place (TestManifestInPlaceOnFullDisk).
	if err := WriteManifest(dir, &Manifest{Format: 1, Status: StatusRunning, Start: time.Now()}); err != nil {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile+".tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("manifest.json.tmp left after a failed write: %v", err)
	}
}

// Create refuses a directory holding a user's files.
func TestCreateRefusesForeignDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "thesis.tex"), []byte("mine"), 0o644)
	if _, err := Create(dir); !errors.Is(err, ErrNotRunDir) || !strings.Contains(err.Error(), "thesis.tex") {
		t.Errorf("err %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "thesis.tex")); string(b) != "mine" {
		t.Errorf("file changed")
	}
	if _, err := os.Stat(filepath.Join(dir, ResultsFile)); err == nil {
		t.Errorf("results.jsonl written into a user's directory")
	}
}

// A FIFO or a device in place of a run's files fails at once; a cancelled
// context stops the reader; too many records name the limit.
func TestReadRunBounded(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ManifestFile), 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadRun(dir); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO manifest: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadRun blocks on a FIFO")
	}
	dir = writeRunDir(t, runningManifest, nil)
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ResultsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(dir); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("/dev/zero results: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, _ := encode(t, sampleResults(2))
	if _, err := ReadRunContext(ctx, writeRunDir(t, runningManifest, b)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestReadResultsRecordCap(t *testing.T) {
	if recordCap != MaxRecords {
		t.Fatalf("the cap is %d, not MaxRecords", recordCap)
	}
	defer func(c int) { recordCap = c }(recordCap)
	recordCap = 1000
	line := []byte(`{"probe":"x"}` + "\n")
	res, _, err := ReadResults(&repeat{line: line, n: 1000})
	if err != nil || len(res) != 1000 {
		t.Errorf("1000 records at a cap of 1000: %d records, %v", len(res), err)
	}
	res, _, err = ReadResults(&repeat{line: line, n: 1001})
	if !errors.Is(err, ErrTooManyRecords) || !strings.Contains(err.Error(), "line 1001") || !strings.Contains(err.Error(), "of 1000 per run") || len(res) != 1000 {
		t.Errorf("1001 records at a cap of 1000: %d records, %v", len(res), err)
	}
}

type repeat struct {
	line []byte
	n    int
	off  int
}

func (r *repeat) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if r.n == 0 {
			if w == 0 {
				return 0, io.EOF
			}
			break
		}
		c := copy(p[w:], r.line[r.off:])
		w += c
		r.off += c
		if r.off == len(r.line) {
			r.off = 0
			r.n--
		}
	}
	return w, nil
}

// A finished run whose results.jsonl was truncated, emptied, removed or
// replaced by a dangling link after the run is read as interrupted, never
// as complete with fewer records than its manifest counts.
func TestFinishedRunWithLostRecords(t *testing.T) {
	full, _ := encode(t, sampleResults(3))
	complete := `{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","results":"results.jsonl","probes":[{"name":"tcp","status":"ok","results":3}]}`
	for _, c := range []struct {
		name string
		prep func(dir string)
		n    int
	}{
		{"truncated", func(dir string) { os.WriteFile(filepath.Join(dir, ResultsFile), full[:len(full)/2], 0o644) }, 1},
		{"empty", func(dir string) { os.WriteFile(filepath.Join(dir, ResultsFile), nil, 0o644) }, 0},
		{"missing", func(dir string) { os.Remove(filepath.Join(dir, ResultsFile)) }, 0},
		{"dangling link", func(dir string) {
			os.Remove(filepath.Join(dir, ResultsFile))
			os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, ResultsFile))
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRunDir(t, complete, full)
			c.prep(dir)
			rd, err := ReadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			if rd.Manifest.Status != StatusInterrupted || rd.Written != StatusComplete || len(rd.Results) != c.n {
				t.Fatalf("status %s (written %s), %d records", rd.Manifest.Status, rd.Written, len(rd.Results))
			}
			if !strings.Contains(rd.Derived, "found complete, but results.jsonl holds") || !strings.Contains(rd.Derived, "of the 3 its manifest counts") {
				t.Errorf("Derived %q", rd.Derived)
			}
		})
	}
	// The whole file reads as complete.
	rd, err := ReadRun(writeRunDir(t, complete, full))
	if err != nil || rd.Manifest.Status != StatusComplete || rd.Derived != "" {
		t.Errorf("whole run: %v %s %q", err, rd.Manifest.Status, rd.Derived)
	}
}

// Names from a run (its records' probe and variant, its manifest's host
// and probes) are one line without control characters once read: a
// variant with a line break cannot split a figure's legend, a hostname
// with an escape cannot reach a terminal through report.json.
func TestReaderCleansNames(t *testing.T) {
	rs, skipped, err := ReadResults(strings.NewReader(`{"probe":"tcp\u001b[31m","variant":"a\nb","bytes":8,"iterations":1,"median_s":1e-6,"note":"x\u0007","host":"n\u001b1"}` + "\n"))
	if err != nil || len(skipped) != 0 || len(rs) != 1 {
		t.Fatalf("%v %v %d", err, skipped, len(rs))
	}
	if r := rs[0]; r.Probe != `tcp\x1b[31m` || r.Variant != `a\x0ab` || r.Note != `x\x07` || r.Host != `n\x1b1` {
		t.Errorf("%q %q %q %q", r.Probe, r.Variant, r.Note, r.Host)
	}
	m, err := ParseManifest([]byte(`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","host":{"hostname":"h\u001b]0;x\u0007","cpu_model":"c\u009b"},"sources":[{"hostname":"s\u001b"}],"probes":[{"name":"p\u001b","status":"ok","results":0,"reason":"r\u0007"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Host.Hostname != `h\x1b]0;x\x07` || m.Host.CPUModel != `c\u009b` || m.Probes[0].Name != `p\x1b` || m.Probes[0].Reason != `r\x07` || m.Sources[0].Hostname != `s\x1b` {
		t.Errorf("%q %q %q %q", m.Host.Hostname, m.Host.CPUModel, m.Probes[0].Name, m.Probes[0].Reason)
	}
}

// A manifest's sources are hosts like its own: each name one line and
// bounded, and at most MaxSources of them.
func TestManifestSources(t *testing.T) {
	head := `{"format":1,"tool":"gpupath import","status":"complete","start":"2026-11-29T12:00:00Z","host":{"hostname":"h"},"probes":[],"sources":[`
	if _, err := ParseManifest([]byte(head + `{"hostname":"a\nb"}]}`)); err == nil || !strings.Contains(err.Error(), "sources[0].hostname") {
		t.Errorf("a line break in a source's name: %v", err)
	}
	many := strings.Repeat(`{"hostname":"x"},`, MaxSources) + `{"hostname":"y"}]}`
	if _, err := ParseManifest([]byte(head + many)); err == nil || !strings.Contains(err.Error(), "at most 1024") {
		t.Errorf("%d sources: %v", MaxSources+1, err)
	}
}
