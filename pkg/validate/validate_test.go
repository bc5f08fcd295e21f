package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/calib"
)

func TestPublishedParses(t *testing.T) {
	rows := Published()
	if len(rows) != 113 || rows[0].ID != "S02-01" || rows[0].Line != 2 {
		t.Fatalf("%d rows, first %+v", len(rows), rows[0])
	}
	if !strings.Contains(Attribution, "Every number was read from the cited") {
		t.Error("the README's attribution is not embedded")
	}
}

// The target, in both modes: median absolute error ≤ 15 % and no
// row off by more than 2×, over the rows not excluded (each excluded row
// has its reason).
const (
	targetMedian = 0.15
	targetRatio  = 2.0
)

func checkFigures(t *testing.T, mode Mode, rs []Result, median, ratio float64, hard bool) {
	t.Helper()
	s := Summarize(rs)
	t.Logf("%s: %d rows, median error %.1f%%, worst %.1f%% (%s, ratio %.2f), %d excluded", mode, s.All.Rows, 100*s.All.Median, 100*s.All.Worst, s.All.WorstID, s.All.WorstRatio, s.All.Excluded)
	for _, k := range s.Sources {
		f := s.BySource[k]
		t.Logf("  %s: %d rows, median %.1f%%, worst %.1f%% (%s), %d excluded", k, f.Rows, 100*f.Median, 100*f.Worst, f.WorstID, f.Excluded)
	}
	for _, k := range s.PathNames {
		f := s.ByPath[k]
		t.Logf("  %s: %d rows, median %.1f%%, worst %.1f%% (%s), %d excluded", k, f.Rows, 100*f.Median, 100*f.Worst, f.WorstID, f.Excluded)
	}
	fail := t.Errorf
	if !hard {
		fail = t.Logf
	}
	if s.All.Median > median {
		fail("%s: median error %.1f%% > %.1f%%", mode, 100*s.All.Median, 100*median)
	}
	for _, r := range rs {
		if r.Included() && (r.Ratio > ratio || r.Ratio < 1/ratio) {
			fail("%s: %s off by more than %g×: modeled %g, published %g (ratio %.2f)", mode, r.Row.ID, ratio, r.Modeled, r.Published, r.Ratio)
		}
		if !r.Included() && len(r.Excluded) < 30 {
			t.Errorf("%s: %s excluded without a written reason: %q", mode, r.Row.ID, r.Excluded)
		}
	}
	if s.All.Rows < 40 {
		t.Errorf("%s: only %d rows in the figures", mode, s.All.Rows)
	}
}

func TestPublishedFigures(t *testing.T) {
	rep := NewReport(Published())
	checkFigures(t, Full, rep.Results, targetMedian, targetRatio, true)
	checkFigures(t, Partial, rep.Partial, targetMedian, targetRatio, true)
	// Both modes model and leave out the same rows.
	for i, r := range rep.Results {
		if p := rep.Partial[i]; r.Included() != p.Included() {
			t.Errorf("%s: full %q, partial %q", r.Row.ID, r.Excluded, p.Excluded)
		}
	}
}

// The partial mode gives a row nothing but what the row states: its base is
// the default preset, its GPU and NIC are the catalog entries it names, and
// no assumption of its era is taken.
func TestPartialMode(t *testing.T) {
	rows := map[string]Row{}
	for _, r := range Published() {
		rows[r.ID] = r
	}
	d, err := Derive(rows["S04-01"], Partial)
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Scenario; d.Base != "default" || s.GPU.Model != "V100-SXM2-32GB" || s.GPU.PCIe.Gen != 3 || s.GPU.NVLinkRate != 150e9 {
		t.Errorf("S04-01 partial: base %s gpu %q gen %d nvlink %v", d.Base, s.GPU.Model, s.GPU.PCIe.Gen, s.GPU.NVLinkRate)
	}
	d, _ = Derive(rows["S08-01"], Partial)
	if s := d.Scenario; s.NIC.Model != "ConnectX-5 EDR" || s.NIC.Kind != "ib" || s.NIC.Rate != 100e9/8 || s.NIC.MTU != 4096 {
		t.Errorf("S08-01 partial: nic %q %s %v mtu %d", s.NIC.Model, s.NIC.Kind, s.NIC.Rate, s.NIC.MTU)
	}
	d, _ = Derive(rows["S05-04"], Partial)
	if s := d.Scenario; s.NIC.Model != "NDR200" || s.NIC.Rate != 200e9/8 || s.NIC.Kind != "ib" {
		t.Errorf("S05-04 partial: nic %q %v %s", s.NIC.Model, s.NIC.Rate, s.NIC.Kind)
	}
	d, _ = Derive(rows["S25-03"], Partial)
	if s := d.Scenario; s.Network.Hops != 0 || s.Network.Cable != 0.5 || s.CPU.Model != "Xeon E5-2643 v4" {
		t.Errorf("S25-03 partial: hops %d cable %v cpu %q", s.Network.Hops, s.Network.Cable, s.CPU.Model)
	}
	// A year the row states dates its hardware in both modes: an NVIDIA
	// Tesla of 2015 is that year's K40, its InfiniBand FDR.
	full, _ := Derive(rows["S02-02"], Full)
	part, _ := Derive(rows["S02-02"], Partial)
	for _, d := range []*Derived{full, part} {
		if d.Scenario.GPU.Model != "K40" || d.Scenario.NIC.Rate != 56e9/8 {
			t.Errorf("S02-02 %s: GPU %q, NIC %v: want the K40 and FDR of 2015", d.Mode, d.Scenario.GPU.Model, d.Scenario.NIC.Rate)
		}
	}
}

// Every fact of a row reaches its scenario typed (calib.Overrides and the
// software's keys): no value is formatted into text and parsed back.
func TestReadTyped(t *testing.T) {
	text := map[string]bool{"gpu.model": true, "cpu.model": true, "cpu.family": true, "nic.model": true, "nic.kind": true, "network.switch": true,
		"software.stack": true, "perftest.test": true} // keys whose values are names
	for _, r := range Published() {
		rd := Read(r)
		for _, m := range Modes {
			f := rd.Stated
			if m == Full {
				f = f.Merge(rd.Era)
			}
			for _, o := range append(calib.Overrides(f), rd.Software...) {
				if s, isText := o.Value.(string); isText && !text[o.Key] && !strings.Contains(o.Source, "the catalog's") {
					t.Errorf("%s %s: %s given as text %q (%s)", r.ID, m, o.Key, s, o.Source)
				}
			}
		}
	}
}

// Every exclusion by id names a row of the table.
func TestExclusionsNameRows(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range Published() {
		ids[r.ID] = true
	}
	for id := range byID {
		if !ids[id] {
			t.Errorf("exclusion of %s, which is not in the table", id)
		}
	}
}

func find(t *testing.T, id string) Result {
	t.Helper()
	for _, r := range Run(Published()) {
		if r.Row.ID == id {
			return r
		}
	}
	t.Fatalf("no row %s", id)
	return Result{}
}

func TestDerive(t *testing.T) {
	r := find(t, "S25-03") // ConnectX-4 100 Gb/s back to back, 0.5 m, inline < 188 B
	s := r.Derived.Scenario
	if r.Derived.Base != "gen3-edr" || s.Network.Hops != 0 || s.Network.Cable != 0.5 || s.NIC.InlineSize != 188 || s.NIC.Kind != "ib" {
		t.Errorf("S25-03: base %s hops %d cable %v inline %v kind %s", r.Derived.Base, s.Network.Hops, s.Network.Cable, s.NIC.InlineSize, s.NIC.Kind)
	}
	r = find(t, "S08-01") // perftest on ConnectX-5 EDR: no proxy, no flush (the perftest stack), ib_send_lat
	if s := r.Derived.Scenario; s.Software.Stack != "perftest" || s.Perftest.Test != "send_lat" || s.NIC.Rate != 100e9/8 {
		t.Errorf("S08-01: stack %s test %s rate %v", s.Software.Stack, s.Perftest.Test, s.NIC.Rate)
	}
	if s := find(t, "S04-06").Derived.Scenario; s.Software.Stack != "ucx" || s.UCX.RndvThresh != 256<<10 {
		t.Errorf("S04-06: stack %s rndv_thresh %v, want ucx from 256 KiB (the row's notes)", s.Software.Stack, s.UCX.RndvThresh)
	}
	if r := find(t, "S11-02"); r.Derived.Scenario.Topology.GPUNIC != "SYS" {
		t.Errorf("S11-02 class %s", r.Derived.Scenario.Topology.GPUNIC)
	}
	if r := find(t, "S10-02"); r.Derived.Scenario.Topology.GPUNIC != "PHB" {
		t.Errorf("S10-02 class %s", r.Derived.Scenario.Topology.GPUNIC)
	}
	if r := find(t, "S25-01"); r.Derived.Scenario.NIC.MTU != 2048 || math.Abs(float64(r.Derived.Scenario.DataRate())-1e9) > 1 {
		t.Errorf("S25-01 IPoIB SDR: mtu %d data rate %v", r.Derived.Scenario.NIC.MTU, r.Derived.Scenario.DataRate())
	}
	if r := find(t, "S16-02"); r.Derived.Scenario.NIC.Rate != 112e9/8 {
		t.Errorf("S16-02 dual-port FDR: rate %v", r.Derived.Scenario.NIC.Rate)
	}
	// Every n/s default is listed.
	if r := find(t, "S09-02"); !strings.Contains(strings.Join(r.Derived.Assumed, ";"), "network.hops") {
		t.Errorf("S09-02 assumed %v", r.Derived.Assumed)
	}
}

func TestParseErrors(t *testing.T) {
	head := strings.Join(header, ",") + "\n"
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"header", "id,path\n", "t.csv:1: header has 2 columns"},
		{"column", strings.Replace(head, "unit", "units", 1), `column 4 is "units"`},
		{"short row", head + "X-1,gdr,latency_oneway\n", "t.csv:2: 3 columns"},
		{"value", head + "X-1,gdr,latency_oneway,us,8,fast,,,,,,,\n", `t.csv:2: X-1: value "fast"`},
		{"unit", head + "X-1,gdr,latency_oneway,parsecs,8,1,,,,,,,\n", `unit "parsecs"`},
		{"duplicate", head + "X-1,gdr,latency_oneway,us,8,1,,,,,,,\nX-1,gdr,latency_oneway,us,8,1,,,,,,,\n", "t.csv:3: id X-1 given twice (first on line 2)"},
		// A quantity's name says its kind; a unit of the other kind is a typo.
		{"rate in us", head + "X-1,gdr,bandwidth_uni,us,8,1,,,,,,,\n", `t.csv:2: X-1: quantity "bandwidth_uni" is a rate, unit "us" a time`},
		{"time in GB/s", head + "X-1,gdr,latency_oneway,GB/s,8,1,,,,,,,\n", `t.csv:2: X-1: quantity "latency_oneway" is a time, unit "GB/s" a rate`},
		{"no rows", head, "no rows"},
		{"quote", head + "X-1,\"gdr,latency_oneway,us,8,1,,,,,,,\n", "t.csv:2"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "t.csv")
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestOutputs(t *testing.T) {
	rep := NewReport(Published())
	var tb, jb, cb bytes.Buffer
	if err := rep.WriteTable(&tb); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"S08-06", "per source", "per path", "notes: rows excluded", "S19-08: the source names", "assumed"} {
		if !strings.Contains(tb.String(), w) {
			t.Errorf("table lacks %q", w)
		}
	}
	if err := rep.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows []JSONRow `json:"rows"`
		All  struct {
			Rows   int     `json:"rows"`
			Median float64 `json:"median_error"`
		} `json:"all"`
	}
	if err := json.Unmarshal(jb.Bytes(), &back); err != nil || len(back.Rows) != 113 || back.All.Median != rep.Summary.All.Median {
		t.Errorf("json: %v, %d rows, median %v", err, len(back.Rows), back.All.Median)
	}
	if err := rep.WriteCSV(&cb); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(cb.String(), "\n"); lines != 114 {
		t.Errorf("csv has %d lines, want 114", lines)
	}
}

func FuzzParse(f *testing.F) {
	head := strings.Join(header, ",") + "\n"
	f.Add(head + "X-1,gdr,latency_oneway,us,8,1.5,,,,,,,\n")
	f.Add(head + "X-2,tcp_host,bandwidth_uni,MB/s,large,6-7,a,b,c,d,e,f,g\n")
	f.Add(string(publishedCSV[:2000]))
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := Parse(strings.NewReader(in), "f.csv")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		for _, r := range Run(rows) { // modeling any parsed row never panics
			_ = r.Error()
		}
	})
}

// perftest's ib_read_lat: a small request one way, the data back; from GPU
// memory the responder's NIC reads through BAR1 (0.5 µs more), as the
// fixtures' H100 + ConnectX-7 runs show (5.45 against 5.96 µs at 2 B).
func TestReadLatency(t *testing.T) {
	head := strings.Join(header, ",") + "\n"
	in := head + "R-1,rdma_host,latency_oneway,us,2,5.45,none,ConnectX-7 RoCE 200 Gb/s,PCIe Gen5,,perftest ib_read_lat,fixture,\n" +
		"R-2,gdr,latency_oneway,us,2,5.96,H100 80GB HBM3,ConnectX-7 RoCE 200 Gb/s,PCIe Gen5,PIX,perftest ib_read_lat --use_cuda,fixture,\n"
	rows, err := Parse(strings.NewReader(in), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	rs := Run(rows)
	host, gpu := rs[0], rs[1]
	if !host.Included() || !gpu.Included() || !strings.Contains(host.Model, "RDMA read") {
		t.Fatalf("%+v %+v", host, gpu)
	}
	if d := gpu.Modeled - host.Modeled; math.Abs(d-0.5e-6) > 1e-9 {
		t.Errorf("GPU read − host read = %v, want the 0.5 µs BAR1 read", d)
	}
	t.Logf("ib_read_lat 2 B: host %.2f µs (measured 5.45), GPU %.2f µs (5.96)", host.Modeled*1e6, gpu.Modeled*1e6)
}

// The rows of the categories modeled since: gdrcopy from the remote socket
// (Kepler host), TCPXO collectives (Google's NCCL environment), a 2015
// cluster whose hardware the article does not name.
func TestDeriveNewCategories(t *testing.T) {
	if s := find(t, "S12-10").Derived.Scenario; s.Topology.CPUGPU != "SYS" || s.Topology.InterSocketRate != 6e9 {
		t.Errorf("S12-10: cpu_gpu %s, inter-socket %v", s.Topology.CPUGPU, s.Topology.InterSocketRate)
	}
	if s := find(t, "S12-09").Derived.Scenario; s.Topology.CPUGPU != "PHB" {
		t.Errorf("S12-09: cpu_gpu %s", s.Topology.CPUGPU)
	}
	rows := map[string]Row{}
	for _, r := range Published() {
		rows[r.ID] = r
	}
	c, _, err := collective(rows["S19-05"], "devmem")
	if err != nil || c.Op != "all_gather" || c.Nodes != 2 || c.GPUsPerNode != 8 || c.NICsPerNode != 8 || len(c.Protocols) != 1 || c.Protocols[0] != "Simple" {
		t.Errorf("S19-05: %+v, %v", c, err)
	}
	if s := find(t, "S19-05").Derived.Scenario; s.Stack.Flows != 2 || s.Pipeline.Chunk != 1<<20 {
		t.Errorf("S19-05: flows %d chunk %v", s.Stack.Flows, s.Pipeline.Chunk)
	}
	c, notes, err := collective(rows["S20-02"], "tcp")
	if err != nil || c.Op != "all_reduce" || c.Nodes != 2 || c.GPUsPerNode != 4 || c.NICsPerNode != 1 || len(notes) != 1 || c.Protocols[0] != "Simple" {
		t.Errorf("S20-02: %+v %v %v", c, notes, err)
	}
	for _, id := range []string{"S19-01", "S19-05", "S19-06", "S19-07", "S20-02", "S13-09", "S12-05", "S12-08", "S02-02"} {
		if r := find(t, id); !r.Included() {
			t.Errorf("%s not in the figures: %s", id, r.Excluded)
		}
	}
	if s := find(t, "S02-02").Derived.Scenario; s.NIC.Rate != 56e9/8 || s.GPU.PCIe.Gen != 3 || !strings.Contains(strings.Join(find(t, "S02-02").Derived.Set, ";"), "2015") {
		t.Errorf("S02-02: rate %v gen %d", s.NIC.Rate, s.GPU.PCIe.Gen)
	}
	// Large all_gather over TCPXO: network-bound, 8 NICs × one NIC's rate.
	if r := find(t, "S19-05"); math.Abs(r.Ratio-1) > 0.1 {
		t.Errorf("S19-05 ratio %.2f", r.Ratio)
	}
}

// Values out of their physical range are refused row by row: a time under
// 1 ps (5e-324 µs), a msg_bytes written as a number that is no whole
// number of bytes in 0 B – 1 EiB. Words stay words.
func TestParseRanges(t *testing.T) {
	head := strings.Join(header, ",") + "\n"
	for _, tc := range []struct{ unit, msg, value, want string }{
		{"us", "8", "5e-324", `t.csv:2: X-1: value "5e-324" us is out of range`},
		{"us", "8", "2e12", "out of range"},
		{"GB/s", "8", "1e-12", "out of range"},
		{"GB/s", "8", "1e9", "out of range"},
		{"us", "-1", "3", `t.csv:2: X-1: msg_bytes "-1"`},
		{"us", "NaN", "3", `msg_bytes "NaN"`},
		{"us", "1e20", "3", `msg_bytes "1e20"`},
		{"us", "2.5", "3", `msg_bytes "2.5"`},
		{"us", "2305843009213693952", "3", "out of range"},
	} {
		in := head + "X-1,gdr,latency_oneway," + tc.unit + "," + tc.msg + "," + tc.value + ",,,,,,,\n"
		_, err := Parse(strings.NewReader(in), "t.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s %s: %v, want %q", tc.unit, tc.msg, tc.value, err, tc.want)
		}
	}
	for _, msg := range []string{"", "0", "large", "sweep (-a)", "qperf default", "n/s", "8589934592"} {
		in := head + "X-1,gdr,latency_oneway,us," + msg + ",3,,,,,,,\n"
		if _, err := Parse(strings.NewReader(in), "t.csv"); err != nil {
			t.Errorf("msg_bytes %q: %v", msg, err)
		}
	}
}

// A quantity the model does not compute is excluded with the reason, never
// modeled as something else (a time once came out as a bandwidth printed
// in µs, 6×10¹² % off).
func TestUnknownQuantityExcluded(t *testing.T) {
	head := strings.Join(header, ",") + "\n"
	rows, err := Parse(strings.NewReader(head+"X-1,gdr,latency_bogus,us,8,5.7,,,,,,,\nX-2,gdr,throughput,GB/s,8,5.7,,,,,,,\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Run(rows) {
		if r.Excluded == "" || !strings.Contains(r.Excluded, r.Row.Quantity) || r.Ratio != 0 {
			t.Errorf("%s: excluded %q, ratio %v", r.Row.ID, r.Excluded, r.Ratio)
		}
	}
}
