package importers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/record"
)

// ncclHead is the preamble and table header of a real nccl-tests output.
const ncclHead = "testdata/fixtures/nccl-tests/dranet-all_gather_perf-2node-16xB200-nccl2.26.6.txt"

// ncclRows is a real output's preamble and header with rows rows of
// results after it (two records each: out-of-place and in-place).
func ncclRows(t testing.TB, rows int) []byte {
	t.Helper()
	b, err := os.ReadFile(ncclHead)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var out bytes.Buffer
	out.Grow(rows * 120)
	for _, l := range lines[:24] {
		out.WriteString(l)
	}
	for i := 0; i < rows; i++ {
		sz := int64(1024) << (i % 20)
		fmt.Fprintf(&out, "%12d %12d     float    none      -1    280.4    %.2f    %.2f      0    233.9    %.2f    %.2f      0\n",
			sz, sz/4, float64(sz)/280.4e3, float64(sz)/280.4e3*1.875, float64(sz)/233.9e3, float64(sz)/233.9e3*1.875)
	}
	return out.Bytes()
}

// writeTemp writes b to a file in a new temporary directory.
func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// importAndRead imports paths as gpupath import does and reads the run
// back: the manifest must be under the reader's limit, and the reader
// must find every record the import wrote.
func importAndRead(t *testing.T, paths ...string) *record.RunData {
	t.Helper()
	files, err := ReadFilesStream(context.Background(), paths, "")
	var lineErr *Error
	if err != nil && !errors.As(err, &lineErr) {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	m, err := WriteRun(dir, files, Meta{Version: "test", Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, record.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() >= record.MaxManifestBytes/16 {
		t.Errorf("%v: the manifest is %d bytes (the reader's limit is %d)", paths, st.Size(), record.MaxManifestBytes)
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatalf("%v: the run gpupath import wrote does not read back: %v", paths, err)
	}
	want := 0
	for _, p := range m.Probes {
		want += p.Results
	}
	if len(rd.Results) != want || len(rd.Skipped) != 0 {
		t.Errorf("%v: %d records read back, %d skipped; the import wrote %d", paths, len(rd.Results), len(rd.Skipped), want)
	}
	return rd
}

// Every fixture, imported, writes a run that reads back with a manifest
// far under the reader's limit; the records come back into the outputs
// as the parser read them.
func TestImportFixturesReadBack(t *testing.T) {
	for _, p := range fixtureFiles(t) {
		rd := importAndRead(t, p)
		run, err := FromRunData(rd)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := ReadFiles([]string{p}, "")
		if err != nil && !errors.As(err, new(*Error)) {
			t.Fatal(err)
		}
		for k, o := range parsed[0].Outputs {
			got := run.Files[0].Output
			if k > 0 {
				got = run.Files[0].NCCL
			}
			if len(got.Records) != len(o.Records) {
				t.Errorf("%s: output %d: %d records back, %d parsed", p, k, len(got.Records), len(o.Records))
				continue
			}
			for i, r := range o.Records {
				g := got.Records[i]
				if g.Line != r.Line || g.Test != r.Test || g.Op != r.Op || g.Variant != r.Variant || g.Metric != r.Metric ||
					g.Bytes != r.Bytes || g.Rate != r.Rate || g.BusRate != r.BusRate || g.Target != r.Target || g.Path != r.Path {
					t.Errorf("%s: record %d back as %+v, parsed as %+v", p, i, g, r)
					break
				}
			}
		}
	}
}

// An nccl-tests output of 20,000 rows (1.7 KB of manifest a row before)
// writes a manifest of a few KiB, and the run reads back.
func TestImportLargeManifestBounded(t *testing.T) {
	p := writeTemp(t, "all_gather_perf.txt", ncclRows(t, 20_000))
	rd := importAndRead(t, p)
	if len(rd.Results) != 40_000 {
		t.Errorf("%d records, want 40000", len(rd.Results))
	}
}

// peakHeap runs f and returns how far the heap grew above where it was
// (sampled every 10 ms).
func peakHeap(f func()) int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return int64(peak.Load()) - int64(base)
}

// Importing 300,000 records streams them: the heap stays within a few
// times the file's size (holding the records and building the files in
// memory took about 2 GB for this input).
func TestImportStreamsRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 300,000 records")
	}
	b := ncclRows(t, 150_000)
	p := writeTemp(t, "all_reduce_perf.txt", b)
	b = nil
	dir := filepath.Join(t.TempDir(), "run")
	var n int
	grew := peakHeap(func() {
		files, err := ReadFilesStream(context.Background(), []string{p}, "")
		if err != nil {
			t.Fatal(err)
		}
		m, err := WriteRun(dir, files, Meta{Version: "test", Time: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		n = m.Probes[0].Results
	})
	st, _ := os.Stat(p)
	t.Logf("the heap grew by %d MiB importing a file of %d MiB", grew>>20, st.Size()>>20)
	if n != 300_000 {
		t.Errorf("%d records written, want 300000", n)
	}
	if grew > 6*st.Size()+64<<20 {
		t.Errorf("the heap grew by %d MiB importing a file of %d MiB", grew>>20, st.Size()>>20)
	}
}

// Past a run's record limit the import is refused with the limit named,
// before anything is written, and leaves nothing behind; the heap does
// not hold a million records meanwhile.
func TestImportRefusesTooManyRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 1,000,002 records")
	}
	osu := func(testing.TB, int) []byte {
		return []byte("# OSU MPI Latency Test v5.0\n# Size          Latency (us)\n" + strings.Repeat("8                       1.85\n", MaxRecords+1))
	}
	for name, gen := range map[string]func(testing.TB, int) []byte{"all_reduce_perf.txt": ncclRows, "osu_latency.txt": osu} {
		p := writeTemp(t, name, gen(t, MaxRecords/2+1))
		parent := t.TempDir()
		var err error
		grew := peakHeap(func() {
			var files []*File
			files, err = ReadFilesStream(context.Background(), []string{p}, "")
			if err == nil {
				_, err = WriteRun(filepath.Join(parent, "run"), files, Meta{Time: time.Now()})
			}
		})
		if !errors.Is(err, ErrTooManyRecords) || !strings.Contains(err.Error(), "1000000 per run") {
			t.Errorf("%s: 1,000,001 records or more: %v", name, err)
		}
		if ents, _ := os.ReadDir(parent); len(ents) != 0 {
			t.Errorf("%s: left behind: %s", name, ents[0].Name())
		}
		st, _ := os.Stat(p)
		t.Logf("%s: the heap grew by %d MiB refusing a file of %d MiB", name, grew>>20, st.Size()>>20)
		if grew > 6*st.Size()+64<<20 { // holding the records took over 10 times the file
			t.Errorf("%s: the heap grew by %d MiB refusing a file of %d MiB", name, grew>>20, st.Size()>>20)
		}
	}
}

// A line over the line limit is never parsed: it is listed as FILE:LINE,
// the records of the other lines are kept.
func TestImportSkipsLongLines(t *testing.T) {
	b := ncclRows(t, 10)
	lines := strings.SplitAfter(string(b), "\n")
	long := strings.Repeat("1 ", MaxLineBytes/2+1) + "\n"
	in := strings.Join(lines[:27], "") + long + strings.Join(lines[27:], "")
	p := writeTemp(t, "all_gather_perf.txt", []byte(in))
	files, err := ReadFilesStream(context.Background(), []string{p}, "")
	var lineErr *Error
	if !errors.As(err, &lineErr) || len(lineErr.Lines) != 1 || lineErr.Lines[0].Line != 28 || lineErr.Lines[0].File != p ||
		!strings.Contains(lineErr.Error(), "over the limit of 1 MiB") {
		t.Fatalf("a line of %d bytes: %v", len(long), err)
	}
	if n := files[0].Records(); n != 20 {
		t.Errorf("%d records kept, want 20", n)
	}
}

// A cancelled context ends an import between chunks: reading, cutting
// long lines, parsing and writing each return context.Canceled.
func TestImportInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := ncclRows(t, 100)
	if _, err := ParseFileStream(ctx, "x.txt", append([]byte(nil), b...), ""); !errors.Is(err, context.Canceled) {
		t.Errorf("parse: %v", err)
	}
	p := writeTemp(t, "x.txt", b)
	if _, err := ReadFilesStream(ctx, []string{p}, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("read: %v", err)
	}
	files, err := ReadFilesStream(context.Background(), []string{p}, "")
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	if _, err := WriteRunContext(ctx, filepath.Join(parent, "run"), files, Meta{}); !errors.Is(err, context.Canceled) {
		t.Errorf("write: %v", err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("an interrupted write left %s", ents[0].Name())
	}
}

// Binary content is refused from the first 64 KiB, with one error; text
// with a few bytes that are not UTF-8 (Latin-1 names) is read.
func TestImportRefusesBinary(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	noise := make([]byte, 8<<20)
	rng.Read(noise)
	high := bytes.Repeat([]byte{0xe9, 0x80, 0xff, 'a'}, 32<<10) // no NUL, not UTF-8
	for name, b := range map[string][]byte{"random": noise, "high": high, "nul": append(ncclRows(t, 10), 0)} {
		p := writeTemp(t, name, b)
		_, err := ReadFilesStream(context.Background(), []string{p}, "")
		if !errors.Is(err, ErrBinary) || !strings.HasPrefix(err.Error(), p+": ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
	latin := append(ncclRows(t, 10), []byte("# host caf\xe9\n")...)
	if err := CheckText(latin); err != nil {
		t.Errorf("text with one Latin-1 byte: %v", err)
	}
	if _, err := ParseFile("x", []byte("\x00\x01"), ""); !errors.Is(err, ErrBinary) {
		t.Errorf("ParseFile of binary content: %v", err)
	}
}

// obs.Output.Add takes MaxRecords records and ends the parse at the next.
func TestOutputAddCap(t *testing.T) {
	sunk := 0
	o := &obs.Output{Tool: "x", Sink: func(obs.Record) { sunk++ }, Streamed: obs.MaxRecords - 1}
	o.Add(obs.Record{Line: 1})
	defer func() {
		if p := recover(); p != (obs.TooManyRecords{Line: 7}) || o.Count() != obs.MaxRecords || sunk != 1 || !o.Full() {
			t.Errorf("%d records, panic %v", o.Count(), p)
		}
	}()
	o.Add(obs.Record{Line: 7})
}

// An interrupt during either reading of a streamed file ends it at the
// next check: the first reading returns context.Canceled, the second stops
// at the writer's error without reading the rest.
func TestImportInterruptedMidParse(t *testing.T) {
	b := ncclRows(t, 20_000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The first reading: cancel from inside the parse, at its 5000th record.
	i := -1
	for k := range formats {
		if formats[k].Name == "nccl-tests" {
			i = k
		}
	}
	n, stream := 0, formats[i].Stream
	formats[i].Stream = func(name string, b []byte, sink func(obs.Record)) (*obs.Output, func(*obs.Record), error) {
		return stream(name, b, func(r obs.Record) {
			if n++; n == 5000 {
				cancel()
			}
			sink(r)
		})
	}
	_, err := ParseFileStream(ctx, "x.txt", b, "")
	formats[i].Stream = stream
	if !errors.Is(err, context.Canceled) || n > 5000+4096 {
		t.Errorf("cancelled at record 5000: %v after %d records", err, n)
	}
	files, err := ParseFileStream(context.Background(), "x.txt", b, "")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	stop := errors.New("disk full")
	if err := files.EachRecord(func(*obs.Output, *obs.Record) error {
		if seen++; seen == 100 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || seen != 100 {
		t.Errorf("the writer failed at record 100: %v after %d", err, seen)
	}
}

// A failure on every row (wrong elements at each size) is not copied into
// the manifest once per row: the probe's reason names the first ones and
// counts the rest, and the run reads back.
func TestImportFailureEveryRowBounded(t *testing.T) {
	b := bytes.ReplaceAll(ncclRows(t, 20_000), []byte("      0    233.9"), []byte("      3    233.9"))
	rd := importAndRead(t, writeTemp(t, "all_gather_perf.txt", b))
	p := rd.Manifest.Probes[0]
	if p.Status != record.StatusFailed || !strings.Contains(p.Reason, "and 19980 more") || len(p.Reason) > 10_000 {
		t.Errorf("status %s, reason of %d bytes: %.200s", p.Status, len(p.Reason), p.Reason)
	}
}

// TestImportRefusesWhatCannotReadBack: an output with more different
// sizes in one series than a run may hold (record.Points, the reader's
// own check) is refused and no run directory is left, so that every run
// import writes reads back.
func TestImportRefusesWhatCannotReadBack(t *testing.T) {
	var b strings.Builder
	b.WriteString("# OSU MPI Latency Test v5.0\n# Size          Latency (us)\n")
	for i := 0; i < 10_002; i++ {
		fmt.Fprintf(&b, "%d %0.2f\n", i+1, 1.5+float64(i)*0.001)
	}
	path := filepath.Join(t.TempDir(), "osu_many.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := ReadFilesStream(context.Background(), []string{path}, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	_, err = WriteRunContext(context.Background(), dir, files, Meta{Version: "test", Time: time.Unix(0, 0)})
	if !errors.Is(err, record.ErrTooManySizes) {
		t.Fatalf("error %v, want ErrTooManySizes", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a run directory was left: %v", err)
	}
}

// One file given twice, under the same name or another, is refused before
// anything is read: its records would count twice.
func TestFileGivenTwice(t *testing.T) {
	p := filepath.Join(fixtureDir, "perftest", "moc-ib_read_lat-a-client-roce-rdma_cm-tos41-raw.txt")
	other := filepath.Join(fixtureDir, "perftest", "..", "perftest", "moc-ib_read_lat-a-client-roce-rdma_cm-tos41-raw.txt")
	if _, err := ReadFiles([]string{p, other}, ""); !errors.Is(err, ErrGivenTwice) {
		t.Errorf("%v", err)
	}
}

// A copy of an output under another name is refused too (its records
// would count twice); identical listings without records are not.
func TestCopyGivenTwice(t *testing.T) {
	dir := t.TempDir()
	cp := func(src, name string) string {
		b, err := os.ReadFile(filepath.Join(fixtureDir, src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	lat := "perftest/moc-ib_read_lat-a-client-roce-rdma_cm-tos41-raw.txt"
	if _, err := ReadFiles([]string{cp(lat, "a.txt"), cp(lat, "b.txt")}, ""); !errors.Is(err, ErrGivenTwice) || !strings.Contains(err.Error(), "same content") {
		t.Errorf("a copy: %v", err)
	}
	topo := "nvidia-smi-topo/stelline-puget-wrx90-2xrtx6000ada-2nic-phb-spaces.txt"
	files, err := ReadFiles([]string{cp(topo, "node1.txt"), cp(topo, "node2.txt")}, "")
	if err != nil || len(files) != 2 || files[0].SHA256 == "" || files[0].SHA256 != files[1].SHA256 {
		t.Errorf("identical listings: %v", err)
	}
}
