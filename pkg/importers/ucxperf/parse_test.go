package ucxperf

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// fx is the format's fixtures: ucx_perftest has no shared fixtures yet
// (../testdata/fixtures/ucx_perftest does not exist), only the published
// outputs of testdata/published.
var fx = importtest.Format{Tool: "ucx_perftest", Only: []string{}, Local: "published", Detect: Detect, Parse: Parse}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

func TestGolden(t *testing.T) { fx.CheckGolden(t) }

// Expected values are read off the files by hand; MB/s is 2^20 B/s, usec 1e-6 s.
func TestHandRead(t *testing.T) {
	o := fx.Output(t, "published/issue9908-tag_lat-host-tag_bw-cuda-50ile-client.txt")
	if len(o.Records) != 2 || len(o.Problems) != 0 || len(o.Failures) != 0 {
		t.Fatalf("%d records, problems %v, failures %v", len(o.Records), o.Problems, o.Failures)
	}
	r := o.Records[0]
	if r.Line != 11 || r.Test != "tag_lat" || r.Metric != obs.Latency || r.Iterations != 1000000 || !near(r.Time, 1.502e-6) ||
		!near(r.P50, 1.523e-6) || !near(r.Rate, 5.08*MiBps) || r.MsgRate != 665726 || r.Central != "mean" ||
		len(r.Samples) != 3 || !near(r.Samples[0], 1.508e-6) || r.Bytes != 0 || !near(r.Extra["interval_time_s"], 1.564e-6) {
		t.Errorf("%+v", r)
	}
	r = o.Records[1]
	if r.Line != 21 || r.Test != "tag_bw" || r.Metric != obs.Bandwidth || r.Bytes != 230700000 || r.BytesNote == "" ||
		!near(r.Rate, 591.43*MiBps) || r.MsgRate != 3 || !near(r.Time, 372000.580e-6) || !near(r.P50, 14440.903e-6) ||
		r.Variant != "send cuda, recv cuda" || len(r.Samples) != 2 || r.Iterations != 100 {
		t.Errorf("%+v", r)
	}
	if o.Command != "ucx_perftest 192.168.1.121 -t tag_lat" || !o.Hardware.MemoryGPU || len(o.Hardware.Hosts) != 1 || o.Hardware.Hosts[0] != "gpu1" {
		t.Errorf("command %q, hardware %+v", o.Command, o.Hardware)
	}

	o = fx.Output(t, "published/deepep-issue13-tag_bw-host-typical-client-then-server.txt")
	if len(o.Records) != 1 {
		t.Fatalf("%d records", len(o.Records))
	}
	r = o.Records[0]
	if r.Line != 8 || r.Test != "tag_bw" || !near(r.P50, 0.039e-6) || !near(r.Time, 0.125e-6) || !near(r.Rate, 60.84*MiBps) ||
		r.MsgRate != 7974856 || r.Bytes != 0 || r.Op != "" {
		t.Errorf("%+v", r)
	}

	o = fx.Output(t, "published/ucx-py-ucx-debug-tag_bw-cuda-nvlink-oldest-format.txt")
	if len(o.Records) != 1 {
		t.Fatalf("%d records", len(o.Records))
	}
	r = o.Records[0]
	if r.Line != 16 || r.Test != "tag match bandwidth" || r.Op != "protocol layer" || r.Metric != obs.Bandwidth ||
		r.Variant != "send cuda, recv cuda, layout (automatic)" || r.Bytes != 100000000 || r.Iterations != 10 ||
		!near(r.Rate, 22904.52*MiBps) || r.MsgRate != 240 || !near(r.Time, 4163.694e-6) || r.P50 != 0 || len(r.Samples) != 0 {
		t.Errorf("%+v", r)
	}

	o = fx.Output(t, "published/issue8639-tag_bw-cuda-server-assertion-failed.txt")
	if len(o.Records) != 0 || len(o.Failures) != 2 || o.Failures[0].Line != 13 || o.Failures[1].Line != 35 {
		t.Errorf("%d records, failures %v", len(o.Records), o.Failures)
	}
}

func TestTruncated(t *testing.T) {
	b := fx.Read(t, "published/issue9908-tag_lat-host-tag_bw-cuda-50ile-client.txt")
	// cut inside the first Final row
	i := bytes.Index(b, []byte("Final:"))
	cut := b[:i+30]
	o, err := Parse(cut)
	if err != nil {
		t.Fatal(err)
	}
	// The row cut in two, and the progress rows before it with no Final row.
	if len(o.Records) != 0 || len(o.Problems) != 2 || o.Problems[0].Line != 11 || o.Problems[1].Line != 8 {
		t.Errorf("records %v, problems %v, notes %v", o.Records, o.Problems, o.Notes)
	}
	if err := o.Validate(); err != nil {
		t.Error(err)
	}
	// cut before any Final row: the progress rows are a problem (the run
	// was cut short), no record
	o, err = Parse(b[:i])
	if err != nil || len(o.Records) != 0 || len(o.Problems) != 1 || !strings.Contains(o.Problems[0].Reason, "without a Final") {
		t.Errorf("%v %+v", err, o)
	}
}

func TestGarbage(t *testing.T) {
	for _, b := range []string{"", "\x00\x01\x02garbage\n", "Final: 1 2 3\n", "hello world\n"} {
		if _, err := Parse([]byte(b)); !errors.Is(err, obs.ErrNotRecognized) {
			t.Errorf("%q: %v", b, err)
		}
		if Detect([]byte(b)) {
			t.Errorf("%q detected", b)
		}
	}
}

func TestDetectNegative(t *testing.T) {
	dir := filepath.Join(importtest.Shared, "perftest")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if Detect(b) {
			t.Errorf("%s (perftest) detected as ucx_perftest", e.Name())
		}
	}
}

// FuzzParse checks that Parse never panics and that what it reads passes validation.
func FuzzParse(f *testing.F) { fx.Fuzz(f) }

// An -s the record cannot take (past 1 EiB, negative, not a number) is a
// problem of the command line, not a size left unsaid.
func TestBadSizeOnTheCommandLine(t *testing.T) {
	for _, s := range []string{"2000000000000000000", "-5", "99999999999999999999999", "1,2,,x"} {
		b := fx.Read(t, "published/issue9908-tag_lat-host-tag_bw-cuda-50ile-client.txt")
		o, err := Parse(bytes.Replace(b, []byte("-t tag_lat"), []byte("-t tag_lat -s "+s), 1))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range o.Problems {
			found = found || strings.Contains(p.Reason, "a message size that cannot be read")
		}
		if !found {
			t.Errorf("-s %s: problems %v", s, o.Problems)
		}
	}
}
