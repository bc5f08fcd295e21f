package iperf3

import (
	"github.com/gpupath/gpupath/internal/termtext"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Summary is one `iperf3 -c ... -J` client run: the test's settings, the
// end summary and the intervals.
type Summary struct {
	Version    string // "iperf 3.12"
	SystemInfo string // uname of the client
	Protocol   string // "TCP", "UDP"
	Streams    int
	BlockSize  int64   // bytes per write (-l)
	Duration   float64 // seconds asked for (-t)
	Omit       float64 // seconds left out at the start (-O)
	Reverse    bool
	// Sent and Received are the sums over the streams at the sender and the
	// receiver: bytes, seconds, and the rate in bytes per second (iperf3
	// prints bits per second; converted here).
	SentBytes, ReceivedBytes     float64
	SentSeconds, ReceivedSeconds float64
	SentRate, ReceivedRate       float64
	Retransmits                  int
	// CPU is iperf3's cpu_utilization_percent: each process's user+system
	// CPU time (getrusage) over the test's wall time, in percent of one CPU;
	// Host is the client, Remote the server.
	CPU CPU
	// Intervals are the sums of each reporting interval, omitted ones
	// included (Omitted set).
	Intervals []Interval
	// Error is the tool's own error message ("interrupt - the client has terminated").
	Error string

	// Lines of the parts in the input (1-based), for the importer.
	startLine, endLine, sentLine, receivedLine, errorLine int
	// cut is set when the document ends before its end; cutLine is where.
	cut     error
	cutLine int
	hasEnd  bool
}

// Interval is the sum over the streams of one reporting interval.
type Interval struct {
	Start, End float64 // seconds since the start of the test
	Bytes      float64
	Rate       float64 // bytes per second
	Omitted    bool
	Line       int
}

// CPU is cpu_utilization_percent of iperf3's end summary.
type CPU struct {
	HostTotal    float64 `json:"host_total"`
	HostUser     float64 `json:"host_user"`
	HostSystem   float64 `json:"host_system"`
	RemoteTotal  float64 `json:"remote_total"`
	RemoteUser   float64 `json:"remote_user"`
	RemoteSystem float64 `json:"remote_system"`
}

type startDoc struct {
	Version    string `json:"version"`
	SystemInfo string `json:"system_info"`
	TestStart  struct {
		Protocol   string  `json:"protocol"`
		NumStreams int     `json:"num_streams"`
		BlkSize    int64   `json:"blksize"`
		Omit       float64 `json:"omit"`
		Duration   float64 `json:"duration"`
		Reverse    int     `json:"reverse"`
	} `json:"test_start"`
}

type intervalDoc struct {
	Sum *struct {
		Start         float64 `json:"start"`
		End           float64 `json:"end"`
		Bytes         float64 `json:"bytes"`
		BitsPerSecond float64 `json:"bits_per_second"`
		Omitted       bool    `json:"omitted"`
	} `json:"sum"`
}

type endDoc struct {
	SumSent     *sumDoc `json:"sum_sent"`
	SumReceived *sumDoc `json:"sum_received"`
	// UDP runs have one "sum" instead.
	Sum *sumDoc `json:"sum"`
	CPU CPU     `json:"cpu_utilization_percent"`
}

type sumDoc struct {
	Seconds       float64 `json:"seconds"`
	Bytes         float64 `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	Retransmits   int     `json:"retransmits"`
}

// ErrReported wraps the error message iperf3 put in its own output.
var ErrReported = errors.New("iperf3 reported an error")

// ParseJSON reads the JSON document of `iperf3 -J` (client side). It
// skips what a terminal put before the document ("^C"), accepts CRLF line
// ends and iperf3's duplicate keys. A document without an end summary is an
// error; so is one where iperf3 reported an error — then the summary that
// is there comes back too, with the error wrapping ErrReported.
func ParseJSON(b []byte) (*Summary, error) {
	s, err := decode(b)
	if err != nil {
		return nil, err
	}
	if s.cut != nil {
		return nil, fmt.Errorf("iperf3: line %d: %w", s.cutLine, s.cut)
	}
	if !s.hasEnd || s.sentLine == 0 || s.receivedLine == 0 {
		if s.Error != "" {
			return nil, fmt.Errorf("%w: %s", ErrReported, s.Error)
		}
		return nil, errors.New("iperf3: no end summary (sum_sent, sum_received)")
	}
	if s.Error != "" {
		return s, fmt.Errorf("%w: %s", ErrReported, s.Error)
	}
	return s, nil
}

// decode walks the top-level object part by part, so that a document cut
// off in its intervals keeps the intervals before the cut (s.cut says
// where it ends). An error is for input that holds no iperf3 document.
func decode(b []byte) (*Summary, error) {
	s, _, err := decodeAt(b, 0)
	return s, err
}

// decodeAt is decode of the document that starts at or after from (lines
// are still b's), and the offset past its end.
func decodeAt(b []byte, from int) (s *Summary, end int, err error) {
	i := bytes.IndexByte(b[from:], '{')
	if i < 0 {
		return nil, 0, errors.New("iperf3: no JSON document")
	}
	i += from
	dec := json.NewDecoder(bytes.NewReader(b[i:]))
	defer func() { end = i + int(dec.InputOffset()) }()
	s, err = decodeDoc(b, i, dec)
	return s, end, err
}

func decodeDoc(b []byte, i int, dec *json.Decoder) (*Summary, error) {
	// lineAt is the line of the first byte at or after off that is not
	// white space or a comma: where the next value starts.
	lineAt := func(off int64) int {
		j := i + int(off)
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n' || b[j] == ',' || b[j] == ':') {
			j++
		}
		return 1 + bytes.Count(b[:min(j, len(b))], []byte{'\n'})
	}
	s := &Summary{}
	fail := func(off int64, err error) (*Summary, error) {
		if errors.Is(err, errTrailing) {
			return nil, err
		}
		if s.startLine == 0 {
			return nil, fmt.Errorf("iperf3: line %d: %w", lineAt(off), err)
		}
		s.cut, s.cutLine = cutError(err), lineAt(off)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			// The input ends inside the part that starts at cutLine.
			s.cut = fmt.Errorf("the JSON document is cut off here, inside the part that starts at line %d", s.cutLine)
			s.cutLine = 1 + bytes.Count(bytes.TrimRight(b, "\r\n"), []byte{'\n'})
		}
		return s, nil
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("iperf3: no JSON object")
	}
	for dec.More() {
		off := dec.InputOffset()
		t, err := dec.Token()
		if err != nil {
			return fail(off, err)
		}
		key, _ := t.(string)
		off = dec.InputOffset()
		switch key {
		case "start":
			var st startDoc
			if err := dec.Decode(&st); err != nil {
				return fail(off, err)
			}
			s.startLine = lineAt(off)
			ts := st.TestStart
			s.Version, s.SystemInfo, s.Protocol, s.Streams, s.BlockSize = st.Version, st.SystemInfo, ts.Protocol, ts.NumStreams, ts.BlkSize
			s.Duration, s.Omit, s.Reverse = ts.Duration, ts.Omit, ts.Reverse != 0
		case "intervals":
			if t, err := dec.Token(); err != nil || t != json.Delim('[') {
				if err == nil {
					err = errors.New("intervals is not an array")
				}
				return fail(off, err)
			}
			for dec.More() {
				ioff := dec.InputOffset()
				var iv intervalDoc
				if err := dec.Decode(&iv); err != nil {
					return fail(ioff, err)
				}
				if iv.Sum != nil {
					s.Intervals = append(s.Intervals, Interval{Start: iv.Sum.Start, End: iv.Sum.End, Bytes: iv.Sum.Bytes,
						Rate: iv.Sum.BitsPerSecond / 8, Omitted: iv.Sum.Omitted, Line: lineAt(ioff)})
				}
			}
			if _, err := dec.Token(); err != nil {
				return fail(dec.InputOffset(), err)
			}
		case "end":
			var e endDoc
			if err := dec.Decode(&e); err != nil {
				return fail(off, err)
			}
			s.hasEnd, s.endLine = true, lineAt(off)
			sent, recv := e.SumSent, e.SumReceived
			if sent == nil && recv == nil && e.Sum != nil { // UDP
				sent, recv = e.Sum, e.Sum
			}
			if sent != nil {
				s.SentBytes, s.SentSeconds, s.SentRate, s.Retransmits = sent.Bytes, sent.Seconds, sent.BitsPerSecond/8, sent.Retransmits
				s.sentLine = s.endLine
			}
			if recv != nil {
				s.ReceivedBytes, s.ReceivedSeconds, s.ReceivedRate = recv.Bytes, recv.Seconds, recv.BitsPerSecond/8
				s.receivedLine = s.endLine
			}
			s.CPU = e.CPU
		case "error":
			var msg string
			if err := dec.Decode(&msg); err != nil {
				return fail(off, err)
			}
			s.Error, s.errorLine = msg, lineAt(off)
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(off, err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(dec.InputOffset(), err)
	}
	for _, v := range []float64{s.SentBytes, s.ReceivedBytes, s.SentSeconds, s.ReceivedSeconds, s.SentRate, s.ReceivedRate,
		s.CPU.HostTotal, s.CPU.RemoteTotal, s.Duration, s.Omit} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			// A figure no run has: the end summary is not read (its line
			// says why); the intervals before it are kept.
			line := s.endLine
			if line == 0 {
				line = s.startLine
			}
			s.hasEnd, s.cut, s.cutLine = false, fmt.Errorf("a negative or non-finite figure (%v) in the part that starts here: not read", v), line
			break
		}
	}
	if s.BlockSize < 0 || s.Streams < 0 {
		return nil, errors.New("iperf3: negative block size or stream count")
	}
	return s, nil
}

var errTrailing = errors.New("iperf3: data after the JSON document")

func cutError(err error) error {
	if errors.Is(err, errTrailing) {
		return err
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		// A whole document with one value that is no number of its kind
		// (1e400): not cut off.
		return fmt.Errorf("a value that cannot be read in the part that starts here (%s, out of range or of the wrong kind): the document is read no further", termtext.Cut(ute.Value, 40))
	}
	return fmt.Errorf("the JSON document ends here, cut off or damaged (%v)", err)
}

// CPUSecondsPerByte turns iperf3's CPU percentages into CPU seconds per
// payload byte received, for the client (host) and the server (remote):
// percent/100 × the test's seconds / bytes. The test's seconds are the
// sender's (the interval iperf3 measures CPU over). NaN without bytes.
func (r *Summary) CPUSecondsPerByte() (host, remote float64) {
	if r.ReceivedBytes <= 0 || r.SentSeconds <= 0 {
		return math.NaN(), math.NaN()
	}
	host = r.CPU.HostTotal / 100 * r.SentSeconds / r.ReceivedBytes
	remote = r.CPU.RemoteTotal / 100 * r.SentSeconds / r.ReceivedBytes
	return host, remote
}
