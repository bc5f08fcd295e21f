// Package p2plat reads the output of the CUDA samples' p2pBandwidthLatencyTest
// (NVIDIA/cuda-samples, Samples/5_Domain_Specific/p2pBandwidthLatencyTest/
// p2pBandwidthLatencyTest.cu; Samples/p2pBandwidthLatencyTest or
// 1_Utilities/p2pBandwidthLatencyTest in older trees): the device list, the
// peer-access lines, and one record per cell of every bandwidth and latency
// matrix.
//
// # Units
//
// The units follow the sample's own arithmetic:
//
//   - Bandwidth matrices print GB/s = 1e9 bytes per second.
//     outputBandwidthMatrix computes gb = numElems*sizeof(int)*repeat/1e9 over
//     the elapsed event time of repeat = 5 copies of numElems ints; it doubles
//     gb on the diagonal (i == j: "must count both the read and the write").
//     outputBidirectionalBandwidthMatrix counts 2.0*numElems*sizeof(int)*repeat
//     (both directions run at once and their bytes are summed), doubled again
//     on the diagonal. Rate is the printed value × 1e9.
//   - Latency matrices print microseconds per copy: outputLatencyMatrix
//     prints gpu_time_ms*1e3/repeat (event time on the GPU, repeat = 100)
//     for the "GPU" sub-matrix and cpu_time_ms*1e3/repeat (host time spent
//     issuing each copy) for the "CPU" sub-matrix. Time is the printed value
//     × 1e-6 s. Very old samples (CUDA ≤ 9) printed a single latency matrix
//     headed "D\D" (GPU event time, repeat = 10000); it is read with no
//     "gpu"/"cpu" in the variant.
//
// # Message size
//
// The output never prints the copy size, and the sample's size changed: the
// bandwidth copies are numElems ints, numElems = 40000000 (160000000 bytes)
// by default since cuda-samples commit e6ce58fe (2020-06-30, CUDA 11.1), and
// settable with --numElems; 10000000 ints (40000000 bytes) before. The
// latency copies are 4 ints (16 bytes, "1-int4 transfer") since CUDA 11.0,
// one int (4 bytes) in the CUDA 10.x samples and 1 byte in CUDA ≤ 9. So every
// record has Bytes 0 and a BytesNote saying so; nothing is guessed.
//
// # Records
//
// Test is "p2pBandwidthLatencyTest". Op is named from the matrix heading, no
// more: "unidirectional-write" (Unidirectional P2P=Enabled Bandwidth (P2P
// Writes)), "unidirectional-read" (… (P2P Reads), with --p2p_read),
// "unidirectional" (headings that name no method: P2P=Disabled, and the old
// P2P=Enabled heading), "bidirectional", "latency-write", "latency-read" and
// "latency". Variant is "p2p enabled" or "p2p disabled", then "gpu" or "cpu"
// for the latency sub-matrices, then "local" for a diagonal cell (a copy
// inside one device, whose bandwidth counts the bytes twice: Extra
// bytes_counted_twice = 1). Target is "<row>-><column>" as the sample labels
// them (row device i, column device j): since the CUDA 10 samples a write
// copies from i to j, a read (--p2p_read) copies from j to i; the CUDA ≤ 9
// sample copied from j to i in every matrix. Bidirectional records have
// Extra directions = 2 (the rate sums both directions). Off-diagonal
// records carry Extra peer_access = 1 or 0 when the "Device=i CAN/CANNOT
// Access Peer Device=j" lines say it: without peer access the P2P=Enabled
// matrices fall back to a staged copy. Central is "mean" (the sample
// averages over its repeats); Fields are the row's device and the cell's value.
//
// Device lines fill Hardware.GPUs; peer-access lines, the connectivity
// matrix, the sample's NOTE lines and "Test passed" become notes; "Cuda
// failure" lines, "Test failed" and "waived" endings become Failures. Rows
// that cannot be read, short rows and matrices cut short are Problems.
package p2plat

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// MaxDevices bounds the devices of one matrix: the sample runs on one node
// (cudaGetDeviceCount), which has 8 GPUs and at most a few dozen; a matrix
// of more is not this sample's, and would make N² records.
const MaxDevices = 128

// Tool is the name of the format.
const Tool = "p2pBandwidthLatencyTest"

// Banner is the sample's first line.
const Banner = "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]"

// BytesNote is the BytesNote of every record.
const BytesNote = "not printed: bandwidth copies are --numElems ints (default 40000000 = 160000000 B since CUDA samples 11.1, 10000000 = 40000000 B before); latency copies are 16 B (4 B in CUDA 10.x, 1 B before)"

var (
	deviceRe  = regexp.MustCompile(`^Device: (\d+), (.+?), pciBusID: [0-9a-fA-F]+, pciDeviceID: [0-9a-fA-F]+, pciDomainID:\s*[0-9a-fA-F]+\s*$`)
	peerRe    = regexp.MustCompile(`^Device=(\d+) (CAN|CANNOT) Access Peer Device=(\d+)\s*$`)
	bwHeadRe  = regexp.MustCompile(`^(Unidirectional|Bidirectional) P2P=(Enabled|Disabled) Bandwidth(?: \(P2P (Writes|Reads)\))? Matrix \(GB/s\)\s*$`)
	latHeadRe = regexp.MustCompile(`^P2P=(Enabled|Disabled) Latency(?: \(P2P (Writes|Reads)\))? Matrix \(us\)\s*$`)
	colsRe    = regexp.MustCompile(`^(D\\D|GPU|CPU)((?:\s+\d+)+)\s*$`)
	rowRe     = regexp.MustCompile(`^\d+\s`)
	failRe    = regexp.MustCompile(`(?i)^(?:cuda failure\b|test failed\b|failed to create stop watch|.*\bwaived\b)`)
)

// matrix is the matrix being read.
type matrix struct {
	kind    string // "bw", "lat" or "conn"
	op      string
	variant string
	bidi    bool
	head    int          // line of the heading
	cols    []int        // device numbers of the columns; nil before the header row
	seen    map[int]bool // the rows read under the present header
	sub     string
	rows    int // rows read under the current header
	colLine int
	subs    map[string]bool
	// refused is set when a header could not be read: its problem says
	// so, and the rows under it are not read (nor listed again).
	refused bool
}

type parser struct {
	out   *obs.Output
	m     *matrix
	peers map[[2]int]bool
	// peerLines are the first and last peer-access lines.
	peerFirst, peerLast int
	peerText            []string
	// devices are the device numbers the Device lines list (nil when
	// the output has none: an excerpt of its matrices).
	devices map[int]bool
}

// Detect tells whether b is p2pBandwidthLatencyTest output: its banner or
// one of its matrix headings in the first 4 KiB.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b[:min(len(b), 4096)]) {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, Banner) || bwHeadRe.MatchString(l) || latHeadRe.MatchString(l) {
			return true
		}
	}
	return false
}

// Parse reads p2pBandwidthLatencyTest output: one record per matrix cell.
func Parse(b []byte) (*obs.Output, error) {
	p := &parser{out: &obs.Output{Tool: Tool, Test: Tool}, peers: map[[2]int]bool{}}
	found := false
	for i, raw := range obs.Lines(b) {
		n := i + 1
		l := strings.TrimSpace(raw)
		switch {
		case l == "":
			// A blank line separates the GPU and CPU latency sub-matrices;
			// it ends no matrix.
		case strings.HasPrefix(l, Banner):
			found = true
			p.end()
		case deviceRe.MatchString(l):
			p.end()
			m := deviceRe.FindStringSubmatch(l)
			if d, err := strconv.Atoi(m[1]); err == nil {
				if p.devices == nil {
					p.devices = map[int]bool{}
				}
				p.devices[d] = true
			}
			p.out.Hardware.GPUs = append(p.out.Hardware.GPUs, m[2])
			p.out.Hardware.MemoryGPU = true
			p.out.Hardware.Mark("gpus", n)
		case peerRe.MatchString(l):
			p.end()
			m := peerRe.FindStringSubmatch(l)
			a, err1 := strconv.Atoi(m[1])
			c, err2 := strconv.Atoi(m[3])
			if err1 != nil || err2 != nil {
				p.problem(n, l, "a peer-access line with a device number that cannot be read")
				continue
			}
			p.peers[[2]int{a, c}] = m[2] == "CAN"
			if p.peerFirst == 0 {
				p.peerFirst = n
			}
			p.peerLast = n
			p.peerText = append(p.peerText, fmt.Sprintf("%d->%d %s", a, c, m[2]))
		case l == "P2P Connectivity Matrix":
			p.end()
			p.m = &matrix{kind: "conn", head: n}
			p.out.Notes = append(p.out.Notes, fmt.Sprintf("line %d: P2P connectivity matrix (not recorded: the peer-access lines say the same)", n))
		case bwHeadRe.MatchString(l):
			found = true
			p.end()
			m := bwHeadRe.FindStringSubmatch(l)
			op := "unidirectional"
			if m[1] == "Bidirectional" {
				op = "bidirectional"
			} else if m[3] != "" {
				op += "-" + method(m[3])
			}
			p.m = &matrix{kind: "bw", op: op, variant: "p2p " + strings.ToLower(m[2]), bidi: m[1] == "Bidirectional", head: n}
		case latHeadRe.MatchString(l):
			found = true
			p.end()
			m := latHeadRe.FindStringSubmatch(l)
			op := "latency"
			if m[2] != "" {
				op += "-" + method(m[2])
			}
			p.m = &matrix{kind: "lat", op: op, variant: "p2p " + strings.ToLower(m[1]), head: n}
		case colsRe.MatchString(l) && p.m != nil:
			p.header(n, l)
		case rowRe.MatchString(l+" ") && p.m != nil:
			p.row(n, l)
		case strings.HasPrefix(l, "NOTE: The CUDA Samples are not meant for performance measurements"):
			p.end()
			p.out.Notes = append(p.out.Notes, fmt.Sprintf("line %d: %s", n, l))
		case strings.HasPrefix(l, "***NOTE:"):
			p.end()
			p.out.Notes = append(p.out.Notes, fmt.Sprintf("line %d: %s", n, strings.TrimPrefix(l, "***")))
		case strings.EqualFold(l, "Test passed"):
			p.end()
			p.out.Notes = append(p.out.Notes, fmt.Sprintf("line %d: %s", n, l))
		case failRe.MatchString(l):
			p.end()
			p.out.Failures = append(p.out.Failures, obs.Problem{Line: n, Text: l, Reason: "p2pBandwidthLatencyTest failed or was waived"})
		default:
			// An unknown line ends the matrix being read.
			p.end()
		}
	}
	p.end()
	if !found {
		return nil, obs.NotRecognized(Tool, "no p2pBandwidthLatencyTest banner or matrix heading")
	}
	if len(p.peerText) > 0 {
		p.out.Notes = append(p.out.Notes, fmt.Sprintf("lines %d-%d: peer access: %s", p.peerFirst, p.peerLast, strings.Join(p.peerText, ", ")))
	}
	return p.out, nil
}

func method(s string) string {
	if s == "Reads" {
		return "read"
	}
	return "write"
}

func (p *parser) problem(n int, text, reason string) {
	p.out.Problems = append(p.out.Problems, obs.Problem{Line: n, Text: text, Reason: reason})
}

// header starts a (sub-)matrix at its column header row.
func (p *parser) header(n int, l string) {
	m := p.m
	p.check()
	f := strings.Fields(l)
	if len(f)-1 > MaxDevices {
		p.problem(n, "", fmt.Sprintf("a matrix of %d devices: at most %d (the sample's largest node has far fewer); its rows are not read", len(f)-1, MaxDevices))
		m.cols, m.refused = nil, true
		return
	}
	cols := make([]int, 0, len(f)-1)
	for _, s := range f[1:] {
		c, err := strconv.Atoi(s)
		if err != nil || c < 0 || c >= MaxDevices || slices.Contains(cols, c) {
			p.problem(n, l, "a matrix header with a column that cannot be read (a device number twice or past the limit)")
			m.cols, m.refused = nil, true
			return
		}
		if p.devices != nil && !p.devices[c] {
			p.problem(n, l, fmt.Sprintf("a matrix header naming device %d, which the output's Device lines do not list: the matrix is not read", c))
			m.cols, m.refused = nil, true
			return
		}
		cols = append(cols, c)
	}
	m.cols, m.rows, m.colLine, m.seen, m.refused = cols, 0, n, nil, false
	m.sub = ""
	if m.kind == "lat" && f[0] != `D\D` {
		m.sub = strings.ToLower(f[0])
		if m.subs == nil {
			m.subs = map[string]bool{}
		}
		m.subs[m.sub] = true
	}
}

// row reads one row of the current matrix.
func (p *parser) row(n int, l string) {
	m := p.m
	if m.kind == "conn" || m.refused {
		return
	}
	if m.cols == nil {
		p.problem(n, l, "a matrix row before the matrix's column header")
		return
	}
	f := strings.Fields(l)
	from, err := strconv.Atoi(f[0])
	if err != nil {
		p.problem(n, l, "a matrix row whose device number cannot be read")
		return
	}
	vals := make([]float64, 0, len(f)-1)
	for _, s := range f[1:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			p.problem(n, l, fmt.Sprintf("a matrix row with a value that cannot be read (%s)", obs.Quote(s, 20)))
			m.rows++
			return
		}
		vals = append(vals, v)
	}
	m.rows++
	if len(vals) > len(m.cols) {
		p.problem(n, l, fmt.Sprintf("a matrix row with %d values under %d columns", len(vals), len(m.cols)))
		return
	}
	if len(vals) < len(m.cols) {
		p.problem(n, l, fmt.Sprintf("a matrix row cut short: %d values under %d columns (the values read are kept)", len(vals), len(m.cols)))
	}
	if m.seen == nil {
		m.seen = map[int]bool{}
	}
	if m.seen[from] || from < 0 || from >= MaxDevices {
		p.problem(n, l, fmt.Sprintf("a matrix row for device %d twice, or past the limit: not read", from))
		return
	}
	if !slices.Contains(m.cols, from) {
		p.problem(n, l, fmt.Sprintf("a matrix row for device %d, which the matrix's columns do not name: not read", from))
		return
	}
	m.seen[from] = true
	for k, v := range vals {
		p.add(n, from, m.cols[k], v, f[0], f[k+1])
	}
}

func (p *parser) add(n, from, to int, v float64, row, cell string) {
	m := p.m
	variant := m.variant
	if m.sub != "" {
		variant += " " + m.sub
	}
	if from == to {
		variant += " local"
	}
	if v <= 0 {
		p.problem(n, "", fmt.Sprintf("%s %s %d->%d is 0: no record (a rate or a time of 0 is no measurement)", m.op, variant, from, to))
		return
	}
	r := obs.Record{Line: n, Test: Tool, Op: m.op, Variant: variant, Target: fmt.Sprintf("%d->%d", from, to),
		BytesNote: BytesNote, Central: "mean"}
	extra := map[string]float64{}
	if m.kind == "bw" {
		r.Metric, r.Rate = obs.Bandwidth, v*1e9
		if from == to {
			extra["bytes_counted_twice"] = 1
		}
		if m.bidi {
			extra["directions"] = 2
		}
	} else {
		r.Metric, r.Time = obs.Latency, v*1e-6
	}
	if from != to {
		if ok, known := p.peers[[2]int{from, to}]; known {
			extra["peer_access"] = 0
			if ok {
				extra["peer_access"] = 1
			}
		}
	}
	r.Path = pathOf(m.kind == "bw", m.bidi, from == to, strings.HasPrefix(m.variant, "p2p enabled"))
	if pa, known := extra["peer_access"]; known && pa == 0 && r.Path == PathPeer {
		r.Path = PathStaged // without peer access the sample falls back to a staged copy
	}
	if len(extra) > 0 {
		r.Extra = extra
	}
	r.Fields = []string{row, cell} // the row's device and the cell: a row of a large matrix is not copied into each
	p.out.Add(r)
}

// check reports a (sub-)matrix with fewer rows than columns.
func (p *parser) check() {
	m := p.m
	if m == nil || m.kind == "conn" || m.cols == nil {
		return
	}
	if m.rows < len(m.cols) {
		p.problem(m.colLine, "", fmt.Sprintf("matrix cut short: %d of %d rows (the rows read are kept)", m.rows, len(m.cols)))
	}
}

// end closes the matrix being read.
func (p *parser) end() {
	m := p.m
	if m == nil {
		return
	}
	if m.kind != "conn" && m.cols == nil && !m.refused {
		p.problem(m.head, "", "matrix heading without a matrix")
	}
	p.check()
	if m.subs["gpu"] && !m.subs["cpu"] {
		p.problem(m.head, "", "latency matrix without its CPU sub-matrix (cut short?)")
	}
	p.m = nil
}

// The model paths the cells measure. Only a one-way P2P copy between two
// GPUs is the model's gpu-peer path; the others name what they are, and
// the comparison with the model says why it has none (pkg/calib).
const (
	PathPeer     = "gpu-peer"               // a P2P copy one way between two GPUs
	PathStaged   = "gpu-peer-staged"        // P2P disabled: the copy goes through host memory
	PathBoth     = "gpu-peer-bidirectional" // both directions at once, their sum
	PathLocal    = "gpu-local"              // the diagonal: a copy inside one GPU's memory
	PathAsyncLat = "gpu-peer-async"         // the latency matrices: back-to-back copies on a stream
)

func pathOf(bw, bidi, local, p2p bool) string {
	switch {
	case local:
		return PathLocal
	case !bw:
		return PathAsyncLat
	case bidi:
		return PathBoth
	case !p2p:
		return PathStaged
	}
	return PathPeer
}
