package record

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// samplesRun is results.jsonl of n records of one point (tcp pingpong on
// loopback, 64 B), each with k samples, and one record of another size
// with a few.
func samplesRun(n, k int) []byte {
	var b bytes.Buffer
	samples := strings.TrimSuffix(strings.Repeat("0.0000093,", k), ",")
	for range n {
		fmt.Fprintf(&b, `{"probe":"tcp","variant":"pingpong","target":"loopback","timer":"wall","bytes":64,"iterations":%d,"median_s":0.0000093,"samples_s":[%s]}`+"\n", k, samples)
	}
	fmt.Fprintf(&b, `{"probe":"tcp","variant":"pingpong","target":"loopback","timer":"wall","bytes":128,"iterations":3,"median_s":0.00001,"samples_s":[0.00001,0.00001,0.00001]}`+"\n")
	return b.Bytes()
}

// The samples kept of one point are bounded as the records stream: past
// MaxPointSamples a record keeps its median only, and the run counts it,
// whatever the file holds (records of a few thousand samples each took
// 1.4 GB to read whole). The other point keeps its samples.
func TestReadBoundsSamplesPerPoint(t *testing.T) {
	const n, k = 200, 2500 // 500,000 samples of one point
	dir := writeRunDir(t, completeManifest, samplesRun(n, k))
	rd, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Results) != n+1 {
		t.Fatalf("%d records, want %d", len(rd.Results), n+1)
	}
	kept, with := 0, 0
	for _, r := range rd.Results[:n] {
		kept += len(r.Samples)
		if len(r.Samples) > 0 {
			with++
		}
		if r.MedianS != 0.0000093 {
			t.Fatalf("median %g changed", r.MedianS)
		}
	}
	if kept > MaxPointSamples || kept < MaxPointSamples-k {
		t.Errorf("%d samples kept of one point, want at most %d and near it", kept, MaxPointSamples)
	}
	if rd.SamplesLeft != n-with {
		t.Errorf("SamplesLeft %d, want %d", rd.SamplesLeft, n-with)
	}
	if got := len(rd.Results[n].Samples); got != 3 {
		t.Errorf("the other point kept %d samples, want 3", got)
	}
}

// Reading such a run holds memory for the samples kept, not for those in
// the file: 2,000 records of 2,500 samples (40 MB as numbers) leave less
// than a fifth of that on the heap (a generous bound: the samples kept
// are 0.5 MB).
func TestReadSamplesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 60 MB")
	}
	dir := writeRunDir(t, completeManifest, samplesRun(2000, 2500))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rd, err := ReadRunContext(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if full := int64(2000 * 2500 * 8); held > full/5 {
		t.Errorf("%d bytes held after reading, the samples are %d", held, full)
	}
	runtime.KeepAlive(rd)
}
