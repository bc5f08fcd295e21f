package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleResults(n int) []Result {
	var rs []Result
	for i := 0; i < n; i++ {
		rs = append(rs, Result{
			Probe: "tcp", Variant: "pingpong", Target: "loopback", Bytes: int64(64 << i),
			Iterations: 100 + i, MinS: 5e-6, MedianS: 6e-6 + float64(i)*1e-7, P99S: 9e-6,
			Time: time.Date(2026, 11, 29, 12, 0, i, 0, time.UTC), Extra: map[string]float64{"mss": 65483},
		})
	}
	return rs
}

// encode writes records as the runner does and returns the bytes and the
// offset of each line's newline.
func encode(t testing.TB, rs []Result) ([]byte, []int) {
	var buf bytes.Buffer
	for _, r := range rs {
		if err := AppendResult(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	b := buf.Bytes()
	var ends []int
	for i, c := range b {
		if c == '\n' {
			ends = append(ends, i)
		}
	}
	return b, ends
}

func TestReadResultsRoundTrip(t *testing.T) {
	rs := sampleResults(4)
	b, _ := encode(t, rs)
	got, skipped, err := ReadResults(bytes.NewReader(b))
	if err != nil || len(skipped) != 0 {
		t.Fatalf("err %v, skipped %v", err, skipped)
	}
	if len(got) != 4 || got[3].Bytes != 512 || got[2].Extra["mss"] != 65483 || !got[1].Time.Equal(rs[1].Time) {
		t.Fatalf("read back %+v", got)
	}
}

// TestReadResultsCutAnywhere cuts a results file at every byte, as a SIGKILL
// in the middle of a write would: every complete line must come back, and
// exactly the one cut line must be reported, with its line number.
func TestReadResultsCutAnywhere(t *testing.T) {
	b, ends := encode(t, sampleResults(3))
	starts := []int{0, ends[0] + 1, ends[1] + 1}
	for cut := 0; cut <= len(b); cut++ {
		got, skipped, err := ReadResults(bytes.NewReader(b[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		wantOK, wantSkip := 0, 0
		for i, e := range ends {
			switch {
			case cut >= e: // the whole line is there (its newline may be cut)
				wantOK++
			case cut > starts[i]:
				wantSkip++
			}
		}
		if len(got) != wantOK || len(skipped) != wantSkip {
			t.Fatalf("cut at %d: %d records, %d skipped (%v); want %d, %d", cut, len(got), len(skipped), skipped, wantOK, wantSkip)
		}
		if wantSkip == 1 {
			if skipped[0].Line != wantOK+1 || !strings.Contains(skipped[0].Reason, "cut off") {
				t.Fatalf("cut at %d: skipped %v, want line %d cut off", cut, skipped, wantOK+1)
			}
		}
	}
}

func TestReadResultsKeepsGoing(t *testing.T) {
	b, _ := encode(t, sampleResults(2))
	lines := strings.SplitAfter(string(b), "\n")
	in := lines[0] + "\n" + // blank line: ignored
		"{not json\n" +
		`{"probe":"","bytes":1}` + "\n" +
		`{"probe":"x","bytes":-5}` + "\n" +
		`{"probe":"x","median_s":-1}` + "\n" +
		`{"probe":"x"} {"probe":"y"}` + "\n" +
		strings.Repeat("x", maxLine+10) + "\n" +
		lines[1]
	got, skipped, err := ReadResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("got %d records, want 2", len(got))
	}
	wantLines := []int{3, 4, 5, 6, 7, 8}
	if len(skipped) != len(wantLines) {
		t.Fatalf("skipped %v, want lines %v", skipped, wantLines)
	}
	for i, s := range skipped {
		if s.Line != wantLines[i] {
			t.Errorf("skipped[%d] = %v, want line %d", i, s, wantLines[i])
		}
	}
	if !strings.Contains(skipped[5].Reason, "longer than") {
		t.Errorf("long line reason %q", skipped[5].Reason)
	}
}

func writeRunDir(t *testing.T, manifest string, results []byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if results != nil {
		if err := os.WriteFile(filepath.Join(dir, ResultsFile), results, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadRunFixture(t *testing.T) {
	rd, err := ReadRun("testdata/runs/killed")
	if err != nil {
		t.Fatal(err)
	}
	// The writer of the fixture is long gone: the reader says interrupted.
	if rd.Manifest.Status != StatusInterrupted || rd.Written != StatusRunning || !strings.Contains(rd.Derived, "the writer died") || rd.Manifest.Host.Hostname != "node1" {
		t.Errorf("manifest %+v", rd.Manifest)
	}
	if len(rd.Results) != 2 || len(rd.Skipped) != 1 || rd.Skipped[0].Line != 3 {
		t.Errorf("%d results, skipped %v; want 2 and line 3", len(rd.Results), rd.Skipped)
	}
}

func TestReadRunManifestErrors(t *testing.T) {
	good := `{"format":1,"tool":"gpupath","status":"complete","start":"2026-11-29T12:00:00Z","results":"results.jsonl"}`
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"syntax", "{\n  \"format\": 1,\n  \"status\": complete\n}", "line 3, column"},
		{"type", `{"format":"one"}`, `field "format"`},
		{"empty", ``, "empty or cut off"},
		{"cut", `{"format":1,"status":"running",`, "empty or cut off"},
		{"trailing", good + `{}`, "data after"},
		{"noformat", `{"status":"complete","start":"2026-11-29T12:00:00Z"}`, "no format"},
		{"future", `{"format":99,"status":"complete","start":"2026-11-29T12:00:00Z"}`, "newer than this reader"},
		{"nostart", `{"format":1,"status":"complete"}`, "no start time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRun(writeRunDir(t, tc.manifest, nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ManifestFile) {
				t.Errorf("err = %v, want it to name %s and say %q", err, ManifestFile, tc.want)
			}
		})
	}
	// A good manifest without results.jsonl is a run with no results.
	rd, err := ReadRun(writeRunDir(t, good, nil))
	if err != nil || len(rd.Results) != 0 {
		t.Errorf("no results file: %v, %v", rd, err)
	}
	// The manifest cannot send the reader out of the run directory.
	evil := strings.Replace(good, `"results.jsonl"`, `"../../etc/passwd"`, 1)
	rd, err = ReadRun(writeRunDir(t, evil, []byte(`{"probe":"ok"}`+"\n")))
	if err != nil || len(rd.Results) != 1 {
		t.Errorf("results path escape: %v, %v", rd, err)
	}
}

func FuzzReadResults(f *testing.F) {
	b, _ := encode(f, sampleResults(2))
	f.Add(b)
	f.Add(b[:len(b)-7])
	f.Add([]byte("\n\n{\"probe\":\"x\"}\n{\"probe\":"))
	f.Add([]byte(`{"probe":"x","bytes":1e400}`))
	f.Add([]byte(`[1,2]` + "\n" + `null` + "\n" + `"s"`))
	// Extreme floats: subnormals, 1e±300, overflow, NaN and Inf spelled as
	// JSON cannot spell them.
	f.Add([]byte(`{"probe":"x","bytes":8,"min_s":5e-324,"median_s":5e-324,"p99_s":4.9e-324}` + "\n"))
	f.Add([]byte(`{"probe":"x","bytes":8,"min_s":1e300,"median_s":1e-300,"throughput_bps":1e308}` + "\n"))
	f.Add([]byte(`{"probe":"x","bytes":8,"median_s":NaN}` + "\n" + `{"probe":"x","median_s":"+Inf"}` + "\n" + `{"probe":"x","median_s":1e999}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, skipped, err := ReadResults(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("error from an in-memory reader: %v", err)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if len(got)+len(skipped) > lines {
			t.Fatalf("%d records + %d skipped from %d lines", len(got), len(skipped), lines)
		}
		prev := 0
		for _, s := range skipped {
			if s.Line <= prev || s.Line > lines || s.Reason == "" {
				t.Fatalf("bad skipped entry %v (previous line %d, %d lines)", s, prev, lines)
			}
			prev = s.Line
		}
		for _, r := range got {
			if r.Probe == "" || r.Bytes < 0 || r.MedianS < 0 {
				t.Fatalf("accepted a bad record %+v", r)
			}
			// What was accepted must survive a round trip.
			if _, err := json.Marshal(r); err != nil {
				t.Fatalf("accepted record does not encode: %v", err)
			}
		}
	})
}

func FuzzParseManifest(f *testing.F) {
	b, _ := os.ReadFile("testdata/runs/killed/manifest.json")
	f.Add(b)
	f.Add([]byte(`{"format":1,"status":"complete","start":"2026-11-29T12:00:00Z"}`))
	f.Add([]byte(`{"format":1,"status":"x","start":"bad"}`))
	f.Add([]byte("{\n\"format\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			if m != nil {
				t.Fatal("manifest and error both returned")
			}
			return
		}
		if m.Format < 1 || m.Format > ManifestFormat || m.Status == "" || m.Start.IsZero() {
			t.Fatalf("accepted a bad manifest %+v", m)
		}
	})
}
