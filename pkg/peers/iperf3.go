package peers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Iperf3 is the summary of one `iperf3 -c ... -J` client run.
type Iperf3 struct {
	Version   string // "iperf 3.12"
	Protocol  string // "TCP"
	Streams   int
	BlockSize int64   // bytes per write (-l)
	Duration  float64 // seconds asked for (-t)
	Omit      float64 // seconds left out at the start (-O)
	Reverse   bool
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
	CPU Iperf3CPU
	// Error is the tool's own error message ("interrupt - the client has terminated").
	Error string
}

// Iperf3CPU is cpu_utilization_percent of iperf3's end summary.
type Iperf3CPU struct {
	HostTotal    float64 `json:"host_total"`
	HostUser     float64 `json:"host_user"`
	HostSystem   float64 `json:"host_system"`
	RemoteTotal  float64 `json:"remote_total"`
	RemoteUser   float64 `json:"remote_user"`
	RemoteSystem float64 `json:"remote_system"`
}

type iperf3Doc struct {
	Start struct {
		Version   string `json:"version"`
		TestStart struct {
			Protocol   string  `json:"protocol"`
			NumStreams int     `json:"num_streams"`
			BlkSize    int64   `json:"blksize"`
			Omit       float64 `json:"omit"`
			Duration   float64 `json:"duration"`
			Reverse    int     `json:"reverse"`
		} `json:"test_start"`
	} `json:"start"`
	End *struct {
		SumSent     *iperf3Sum `json:"sum_sent"`
		SumReceived *iperf3Sum `json:"sum_received"`
		CPU         Iperf3CPU  `json:"cpu_utilization_percent"`
	} `json:"end"`
	Error string `json:"error"`
}

type iperf3Sum struct {
	Seconds       float64 `json:"seconds"`
	Bytes         float64 `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
	Retransmits   int     `json:"retransmits"`
}

// ErrIperf3Reported wraps the error message iperf3 put in its own output.
var ErrIperf3Reported = errors.New("iperf3 reported an error")

// ParseIperf3JSON reads the JSON document of `iperf3 -J` (client side). It
// skips what a terminal put before the document ("^C"), accepts CRLF line
// ends and iperf3's duplicate keys. A document without an end summary is an
// error; so is one where iperf3 reported an error — then the summary that
// is there comes back too, with the error wrapping ErrIperf3Reported.
func ParseIperf3JSON(b []byte) (*Iperf3, error) {
	i := bytes.IndexByte(b, '{')
	if i < 0 {
		return nil, errors.New("iperf3: no JSON document")
	}
	var d iperf3Doc
	dec := json.NewDecoder(bytes.NewReader(b[i:]))
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("iperf3: %w", err)
	}
	if d.End == nil || d.End.SumSent == nil || d.End.SumReceived == nil {
		if d.Error != "" {
			return nil, fmt.Errorf("%w: %s", ErrIperf3Reported, d.Error)
		}
		return nil, errors.New("iperf3: no end summary (sum_sent, sum_received)")
	}
	ts := d.Start.TestStart
	r := &Iperf3{
		Version: d.Start.Version, Protocol: ts.Protocol, Streams: ts.NumStreams, BlockSize: ts.BlkSize,
		Duration: ts.Duration, Omit: ts.Omit, Reverse: ts.Reverse != 0,
		SentBytes: d.End.SumSent.Bytes, ReceivedBytes: d.End.SumReceived.Bytes,
		SentSeconds: d.End.SumSent.Seconds, ReceivedSeconds: d.End.SumReceived.Seconds,
		SentRate: d.End.SumSent.BitsPerSecond / 8, ReceivedRate: d.End.SumReceived.BitsPerSecond / 8,
		Retransmits: d.End.SumSent.Retransmits, CPU: d.End.CPU, Error: d.Error,
	}
	for _, v := range []float64{r.SentBytes, r.ReceivedBytes, r.SentSeconds, r.ReceivedSeconds, r.SentRate, r.ReceivedRate,
		r.CPU.HostTotal, r.CPU.RemoteTotal} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("iperf3: negative or non-finite figure in the end summary")
		}
	}
	if d.Error != "" {
		return r, fmt.Errorf("%w: %s", ErrIperf3Reported, d.Error)
	}
	return r, nil
}

// CPUSecondsPerByte turns iperf3's CPU percentages into CPU seconds per
// payload byte received, for the client (host) and the server (remote):
// percent/100 × the test's seconds / bytes. The test's seconds are the
// sender's (the interval iperf3 measures CPU over). NaN without bytes.
func (r *Iperf3) CPUSecondsPerByte() (host, remote float64) {
	if r.ReceivedBytes <= 0 || r.SentSeconds <= 0 {
		return math.NaN(), math.NaN()
	}
	host = r.CPU.HostTotal / 100 * r.SentSeconds / r.ReceivedBytes
	remote = r.CPU.RemoteTotal / 100 * r.SentSeconds / r.ReceivedBytes
	return host, remote
}
