package iperf3

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/importers/internal/importtest"
)

// fx is the format's fixtures: the shared iperf3 outputs, JSON and text.
var fx = importtest.Format{Tool: "iperf3", Detect: Detect, Parse: Parse}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

func TestParseJSON(t *testing.T) {
	r, err := ParseJSON(fx.Read(t, "json-v3.0.11-tcp-1stream-13s.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Hand-read from the fixture: sum_sent 1520994808 B in 13.0001 s at
	// 935992000 bit/s; sum_received 1518193248 B at 934268000 bit/s.
	if r.Version != "iperf 3.0.11" || r.Protocol != "TCP" || r.Streams != 1 || r.BlockSize != 131072 || r.Duration != 13 {
		t.Errorf("start %+v", r)
	}
	if r.SentBytes != 1520994808 || r.ReceivedBytes != 1518193248 || r.SentSeconds != 13.0001 ||
		r.SentRate != 935992000.0/8 || r.ReceivedRate != 934268000.0/8 {
		t.Errorf("sums %+v", r)
	}
	if len(r.Intervals) != 13 || r.Intervals[0].Rate != 9.50062e+08/8 || r.Intervals[0].Line != 33 {
		t.Errorf("intervals: %d, first %+v", len(r.Intervals), r.Intervals[0])
	}
	// CPU: host 1.66812 %, remote 4.15082 % of 13.0001 s, per received byte.
	host, remote := r.CPUSecondsPerByte()
	if !near(host, 0.0166812*13.0001/1518193248, 1e-12) || !near(remote, 0.0415082*13.0001/1518193248, 1e-12) {
		t.Errorf("cpu per byte %v %v", host, remote)
	}

	r, err = ParseJSON(fx.Read(t, "json-v3.6-tcp-4streams-60s-mininet-dupkeys.json"))
	if err != nil || r.Streams != 4 || r.Retransmits != 2 || !near(r.ReceivedRate, 17535714055.21963/8, 1e-12) {
		t.Errorf("4 streams: %+v, %v", r, err)
	}
	r, err = ParseJSON(fx.Read(t, "json-v3.9-tcp-omit3-ibm-lon-syd-crlf.json"))
	if err != nil || r.Omit != 3 || r.ReceivedBytes != 80706276 || r.Version != "iperf 3.9" {
		t.Errorf("omit/CRLF: %+v, %v", r, err)
	}
	// Interrupted: "^C" before the document, an error at the end, the summary kept.
	r, err = ParseJSON(fx.Read(t, "json-v3.6-tcp-n200M-interrupted-error-ctrlC-prefix-crlf.json"))
	if !errors.Is(err, ErrReported) || r == nil || r.Error != "interrupt - the client has terminated" || r.ReceivedBytes != 0 {
		t.Errorf("interrupted: %+v, %v", r, err)
	}
	if h, _ := r.CPUSecondsPerByte(); !math.IsNaN(h) {
		t.Errorf("cpu per byte without bytes: %v", h)
	}
	// Cut off by a capture buffer: an error, no result.
	if r, err := ParseJSON(fx.Read(t, "json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json")); err == nil || r != nil {
		t.Errorf("truncated document accepted: %+v", r)
	}
	for _, bad := range []string{"", "no json here", `{"start":{}}`, `{"error":"unable to connect to server"}`, `{"start":{}} trailing`} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The observations, checked by hand on four outputs; the golden files fix
// every record of every fixture.
func TestParse(t *testing.T) {
	o, err := Parse(fx.Read(t, "json-v3.0.11-tcp-1stream-13s.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 2 || o.Version != "3.0.11" || o.Hardware.Hosts[0] != "rhowelllx" {
		t.Fatalf("%+v", o)
	}
	snd := o.Records[0]
	// 131072 B writes at 935992000/8 B/s: 131072·8/935992000 s per write.
	if snd.Variant != "sender" || snd.Bytes != 131072 || snd.Rate != 935992000.0/8 || !near(snd.Time, 131072*8/935992000.0, 1e-12) ||
		len(snd.Samples) != 13 || snd.Path != "host-tcp" {
		t.Errorf("sender %+v", snd)
	}

	// Cut off: the intervals before the cut, and the line where it ends.
	o, err = Parse(fx.Read(t, "json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Problems) != 1 || o.Problems[0].Line == 0 || len(o.Records) == 0 || o.Records[0].Variant != "interval" ||
		o.Records[0].Rate != 152247976.03635105/8 {
		t.Errorf("truncated: %d records, problems %+v", len(o.Records), o.Problems)
	}

	// Text, 3 streams: the [SUM] rows only; 128 KiB writes assumed.
	o, err = Parse(fx.Read(t, "moler-text-tcp-client-P3-sum.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 2 || o.Records[0].Rate != 22.3e9/8 || o.Records[1].Rate != 22.2e9/8 || o.Records[0].Bytes != 131072 ||
		o.Records[0].BytesNote == "" || len(o.Records[0].Samples) != 10 {
		t.Errorf("P3: %+v", o.Records)
	}
	if o.Records[0].Extra["transfer_bytes"] != 26.0*(1<<30) {
		t.Errorf("transfer %v", o.Records[0].Extra["transfer_bytes"])
	}

	// UDP, interrupted by Ctrl-C after its summary: the summary is kept,
	// the interrupt is the tool's failure.
	o, err = Parse(fx.Read(t, "text-udp-client-interrupted-377s-old-bandwidth-column.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Records) != 1 || o.Records[0].Rate != 1.05e6/8 || o.Records[0].Path != "" || len(o.Failures) != 1 ||
		!strings.Contains(o.Failures[0].Text, "interrupt") {
		t.Errorf("udp: %+v failures %+v", o.Records, o.Failures)
	}
}

// TestGolden checks every output, each detected as well as parsed.
func TestGolden(t *testing.T) { fx.CheckGolden(t) }

// Every fixture is detected (TestGolden); other tools' outputs are not.
func TestDetect(t *testing.T) {
	for _, s := range []string{"", "hello", `{"nvbandwidth": {}}`, "#  Rank  0 Group  0"} {
		if Detect([]byte(s)) {
			t.Errorf("%q detected", s)
		}
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, p := range []string{"json-v3.0.11-tcp-1stream-13s.json", "json-v3.6-tcp-n200M-interrupted-error-ctrlC-prefix-crlf.json", "json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json"} {
		f.Add(fx.Read(f, p))
	}
	f.Add([]byte(`{"end":{"sum_sent":{"bytes":-1},"sum_received":{}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseJSON(b)
		if err != nil && !errors.Is(err, ErrReported) && r != nil {
			t.Fatal("result with a parse error")
		}
		if r != nil && (r.SentBytes < 0 || r.ReceivedRate < 0 || math.IsNaN(r.SentRate)) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// FuzzParse checks that Parse never panics and never returns a record that
// fails obs validation; the seed corpus in testdata/fuzz/FuzzParse holds
// text outputs.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"moler-text-tcp-client-P3-sum.txt", "moler-text-udp-client-b5000k-fk.txt", "json-v3.9-reverse-TRUNCATED-at-8192-bytes-crlf.json"} {
		f.Add(fx.Read(f, p))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Parse(b)
		if err != nil {
			if o != nil {
				t.Fatal("output with an error")
			}
			return
		}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// Runs appended to one file (iperf3 -J >> runs.json) are each read, the
// later ones named "(run N)"; text after the last document is a problem
// with its line; a value that cannot be held is said to be one, not a
// cut-off document; a negative figure is its part's problem, the file is
// not refused.
func TestJSONDocuments(t *testing.T) {
	doc := string(fx.Read(t, "json-v3.0.11-tcp-1stream-13s.json"))
	lines := strings.Count(doc, "\n")
	two, err := Parse([]byte(doc + doc))
	if err != nil {
		t.Fatal(err)
	}
	one, _ := Parse([]byte(doc))
	if len(two.Records) != 2*len(one.Records) || !strings.HasSuffix(two.Records[len(two.Records)-1].Variant, "(run 2)") || len(two.Problems) != 0 {
		t.Errorf("%d records (one document: %d), %v", len(two.Records), len(one.Records), two.Problems)
	}
	if r := two.Records[len(one.Records)]; r.Line <= lines {
		t.Errorf("the second run's record names line %d, inside the first document (%d lines)", r.Line, lines)
	}
	trail, _ := Parse([]byte(doc + "garbage after\n"))
	if len(trail.Records) != len(one.Records) || len(trail.Problems) != 1 || trail.Problems[0].Line != lines+1 {
		t.Errorf("trailing text: %d records, %v", len(trail.Records), trail.Problems)
	}
	big, err := Parse([]byte(strings.Replace(doc, `"bits_per_second":	1.17e+08`, `"bits_per_second": 1e400`, 1)))
	if err == nil && len(big.Problems) > 0 && strings.Contains(big.Problems[0].Reason, "cut off") {
		t.Errorf("1e400: %v", big.Problems)
	}
	neg := regexp.MustCompile(`("bits_per_second":\s*)[0-9.e+]+`).ReplaceAllString(doc, "${1}-5")
	o, err := Parse([]byte(neg))
	if err != nil || len(o.Problems) == 0 || !strings.Contains(o.Problems[0].Reason, "negative") || o.Problems[0].Line == 0 {
		t.Errorf("negative rates: %v, %+v", err, o)
	}
}
