package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"

	"github.com/gpupath/gpupath/pkg/units"
)

const completeManifest = `{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","results":"results.jsonl","probes":[{"name":"x","status":"ok","results":0}]}`

// results.jsonl over MaxResultsBytes is refused from its size, unread: a
// sparse file of 1 GiB + 1 byte takes no disk and no time, and the error
// names the limit and the size that stat gave.
func TestReadRunRefusesOversizeResultsUnread(t *testing.T) {
	dir := writeRunDir(t, completeManifest, []byte(`{"probe":"x"}`+"\n"))
	if err := os.Truncate(filepath.Join(dir, ResultsFile), MaxResultsBytes+1); err != nil {
		t.Skip(err)
	}
	_, err := ReadRun(dir)
	if !errors.Is(err, safeio.ErrTooLarge) || !strings.Contains(err.Error(), "1 GiB") ||
		!strings.Contains(err.Error(), fmt.Sprintf("(%d bytes)", MaxResultsBytes+1)) {
		t.Errorf("a results.jsonl of 1 GiB + 1 byte: %v", err)
	}
}

// More records than the cap are counted before any is kept: the run is
// refused at the record past the cap (blank, damaged and over-long lines
// do not count), and up to the cap everything reads.
func TestReadRunCountsBeforeKeeping(t *testing.T) {
	defer func(c int) { recordCap = c }(recordCap)
	recordCap = 100
	var b bytes.Buffer
	for i := 0; i < 100; i++ {
		b.WriteString(`{"probe":"x"}` + "\n\n")
	}
	b.WriteString(`{"probe":` + "\n") // damaged: not a record
	rd, err := ReadRun(writeRunDir(t, completeManifest, b.Bytes()))
	if err != nil || len(rd.Results) != 100 || len(rd.Skipped) != 1 {
		t.Fatalf("100 records and a damaged line at a cap of 100: %v", err)
	}
	b.WriteString(`{"probe":"x"}` + "\n")
	_, err = ReadRun(writeRunDir(t, completeManifest, b.Bytes()))
	if !errors.Is(err, ErrTooManyRecords) || !strings.Contains(err.Error(), "line 202") || !strings.Contains(err.Error(), "of 100 per run") {
		t.Errorf("101 records at a cap of 100: %v", err)
	}
}

// The real limit: 1,000,001 records are refused without the reader
// holding a million of them (the heap stays far below what a million
// Results take, about 300 MB).
func TestReadRunMillionRecordsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 1,000,001 records")
	}
	line := []byte(`{"probe":"x","bytes":1}` + "\n")
	dir := writeRunDir(t, completeManifest, bytes.Repeat(line, MaxRecords+1))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
		}
	}()
	_, err := ReadRun(dir)
	close(stop)
	<-done
	if !errors.Is(err, ErrTooManyRecords) || !strings.Contains(err.Error(), "line 1000001") {
		t.Errorf("1,000,001 records: %v", err)
	}
	if grew := int64(peak.Load()) - int64(base); grew > 150<<20 {
		t.Errorf("the heap grew by %d MiB while refusing 1,000,001 records", grew>>20)
	}
}

// The manifest's enumerated and numeric fields are checked: an unknown
// status or a negative count is an error naming the file and the field.
func TestReadRunValidatesManifest(t *testing.T) {
	for _, tc := range []struct{ manifest, want string }{
		{`{"format":1,"tool":"gpupath","status":"banana","start":"2026-11-29T12:00:00Z"}`, `field status: unknown status "banana"`},
		{`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","host":{"cpus":-5}}`, "field host.cpus: -5 is negative"},
		{`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","host":{"memory_bytes":-1}}`, "field host.memory_bytes"},
		{`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","probes":[{"name":"tcp","status":"done"}]}`, `field probes[0] (tcp).status: unknown status "done"`},
		{`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","probes":[{"name":"tcp","status":"ok","results":-3}]}`, "field probes[0] (tcp).results: -3 is negative"},
		{`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","budget_s":-1}`, "field budget_s"},
		{`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","peer":{"cpus":-2}}`, "field peer.cpus"},
		{`{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","host":{"nics":[{"name":"eth0","mtu":-1}]}}`, "field host.nics[0] (eth0)"},
	} {
		dir := writeRunDir(t, tc.manifest, nil)
		_, err := ReadRun(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ManifestFile)) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", tc.manifest, err, tc.want)
		}
	}
	for _, s := range Statuses {
		m := strings.Replace(completeManifest, `"status":"complete"`, `"status":"`+string(s)+`"`, 1)
		if _, err := ParseManifest([]byte(m)); err != nil {
			t.Errorf("status %s: %v", s, err)
		}
	}
}

// A time outside the physical range (a 5e-324 s median, 1e300 s) is no
// measurement: the reader skips its line with the reason, as it skips a
// damaged one, so no figure, fit or comparison downstream sees it (it
// panicked the report's JSON with +Inf and printed "+Inf%" in fit). A time
// of 0 is "not known" and stays.
func TestReadResultsSkipsUnphysicalTimes(t *testing.T) {
	in := strings.Join([]string{
		`{"probe":"tcp","variant":"v","bytes":8,"iterations":1,"median_s":5e-324}`,
		`{"probe":"tcp","variant":"v","bytes":8,"iterations":1,"median_s":1e-6,"p99_s":1e300}`,
		`{"probe":"tcp","variant":"v","bytes":8,"iterations":1,"median_s":1e-6,"min_s":0}`,
	}, "\n") + "\n"
	rs, skipped, err := ReadResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].MedianS != 1e-6 {
		t.Errorf("kept %+v", rs)
	}
	if len(skipped) != 2 || skipped[0].Line != 1 || !strings.Contains(skipped[0].Reason, "median_s") ||
		!strings.Contains(skipped[1].Reason, "p99_s") || !strings.Contains(skipped[1].Reason, "not a measured time") {
		t.Errorf("skipped %v", skipped)
	}
}

// One series with more different sizes than a size sweep gives is refused
// with the limit named; repetitions of sizes are not counted against it.
func TestReadResultsSizesPerSeries(t *testing.T) {
	var b strings.Builder
	for n := 0; n <= units.MaxSizes; n++ {
		fmt.Fprintf(&b, `{"probe":"tcp","variant":"pingpong","bytes":%d,"iterations":1,"median_s":1e-6}`+"\n", 1+n)
	}
	_, _, err := ReadResults(strings.NewReader(b.String()))
	if !errors.Is(err, ErrTooManySizes) || !strings.Contains(err.Error(), "10000") || !strings.Contains(err.Error(), "tcp/pingpong") {
		t.Errorf("distinct sizes: %v", err)
	}
	b.Reset()
	for n := 0; n <= 3*units.MaxSizes; n++ {
		fmt.Fprintf(&b, `{"probe":"tcp","variant":"pingpong","bytes":%d,"iterations":1,"median_s":1e-6}`+"\n", 1+n%100)
	}
	if rs, _, err := ReadResults(strings.NewReader(b.String())); err != nil || len(rs) != 3*units.MaxSizes+1 {
		t.Errorf("repeated sizes: %d records, %v", len(rs), err)
	}
}

// All series together hold at most MaxPoints different sizes.
func TestReadResultsPointsPerRun(t *testing.T) {
	var b strings.Builder
	per := units.MaxSizes - 1
	for s := 0; s*per <= MaxPoints; s++ {
		for n := 0; n < per; n++ {
			fmt.Fprintf(&b, `{"probe":"p%d","variant":"v","bytes":%d,"iterations":1,"median_s":1e-6}`+"\n", s, 1+n)
		}
	}
	_, _, err := ReadResults(strings.NewReader(b.String()))
	if !errors.Is(err, ErrTooManyPoints) || !strings.Contains(err.Error(), "200000") {
		t.Errorf("points: %v", err)
	}
}

// The limit of one fit or report over several runs is counted before any
// run is read (a count of the lines that can be records): three runs of
// 400 at a cap of 1,000 are refused naming the run that passes it, two are
// not; an interrupt ends the count with ctx's error.
func TestCheckTotal(t *testing.T) {
	defer func(c int) { recordCap = c }(recordCap)
	recordCap = 1000
	b, _ := encode(t, sampleResults(400))
	a, c, d := writeRunDir(t, completeManifest, b), writeRunDir(t, completeManifest, b), writeRunDir(t, completeManifest, b)
	if err := CheckTotal(context.Background(), []string{a, c}); err != nil {
		t.Errorf("800 records: %v", err)
	}
	err := CheckTotal(context.Background(), []string{a, c, d, t.TempDir()})
	if !errors.Is(err, ErrTooManyInAll) || !strings.Contains(err.Error(), d) || !strings.Contains(err.Error(), "(1,000)") {
		t.Errorf("1200 records: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CheckTotal(ctx, []string{a, c, d}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// The run directories of one fit or report: each exists and is one, none
// twice (under another name neither), at most MaxRuns.
func TestCheckDirs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	file := filepath.Join(a, "f")
	os.WriteFile(file, nil, 0o644)
	if err := CheckDirs([]string{a, b}); err != nil {
		t.Errorf("two runs: %v", err)
	}
	// Another run that shares the tool, host and start (two imports under
	// one SOURCE_DATE_EPOCH) is not a copy.
	other := copyRun(t, "testdata/runs/killed")
	mb, _ := os.ReadFile(filepath.Join(other, ManifestFile))
	var mm map[string]any
	if err := json.Unmarshal(mb, &mm); err != nil {
		t.Fatal(err)
	}
	mm["plan"] = map[string]any{"options": map[string]string{"import.command": "gpupath import other.txt"}}
	mb, _ = json.Marshal(mm)
	os.WriteFile(filepath.Join(other, ManifestFile), mb, 0o644)
	if err := CheckDirs([]string{"testdata/runs/killed", other}); err != nil {
		t.Errorf("another run of the same start: %v", err)
	}
	many := make([]string, MaxRuns+1)
	for i := range many {
		many[i] = a
	}
	for _, c := range []struct {
		dirs []string
		want string
	}{
		{[]string{a, filepath.Join(a, ".")}, "the same run as"},
		{[]string{filepath.Join(a, "nope")}, "no such directory"},
		{[]string{file}, "not a directory"},
		{many, "at most 64"},
		{[]string{"testdata/runs/killed", copyRun(t, "testdata/runs/killed")}, "a copy of the run in testdata/runs/killed"},
	} {
		if err := CheckDirs(c.dirs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.dirs[:min(2, len(c.dirs))], err, c.want)
		}
	}
}

// copyRun copies the run directory src to a new directory.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
