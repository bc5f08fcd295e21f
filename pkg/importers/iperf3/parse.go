package iperf3

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "iperf3"

// DefaultTCPBlockSize is iperf3's write size for TCP when -l is not given
// (DEFAULT_TCP_BLKSIZE = 128 KiB in iperf.h). The text output does not
// print the write size, so records read from text assume it and say so.
const DefaultTCPBlockSize = 128 << 10

// Detect tells whether b is iperf3 output (JSON or text).
func Detect(b []byte) bool {
	head := b[:min(len(b), 4096)]
	if j := bytes.IndexByte(head, '{'); j >= 0 && len(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(head[:j]), []byte("^C")))) == 0 {
		return bytes.Contains(head, []byte(`"start"`)) && (bytes.Contains(head, []byte(`"test_start"`)) || bytes.Contains(head, []byte(`"connecting_to"`)) || bytes.Contains(head, []byte(`"version":`)) && bytes.Contains(head, []byte("iperf")))
	}
	return looksText(obs.Lines(head))
}

// Parse reads iperf3 output, JSON (-J) or text, into observations: one
// bandwidth record for the sender and one for the receiver of the end
// summary (of the [SUM] with parallel streams), with the non-omitted
// intervals as samples (time per write). A JSON document cut off before
// its end keeps its intervals, one record each, and reports the line where
// it ends. UDP runs are read but name no model path.
func Parse(b []byte) (*obs.Output, error) {
	head := bytes.TrimSpace(b)
	head = bytes.TrimSpace(bytes.TrimPrefix(head, []byte("^C")))
	if len(head) > 0 && head[0] == '{' {
		return parseDocuments(b)
	}
	lines := obs.Lines(b)
	if !looksText(lines) {
		return nil, obs.NotRecognized(Tool, "neither an iperf3 JSON document nor its text table")
	}
	return ParseText(lines).observations(), nil
}

// parseDocuments reads every JSON document of b, one after another (a loop
// of iperf3 -J >> runs.json appends one per run): the second and later
// runs' records are named "(run N)"; text after the last document is a
// problem with its line, never dropped without a word.
func parseDocuments(b []byte) (*obs.Output, error) {
	var out *obs.Output
	for run, at := 1, 0; ; run++ {
		s, end, err := decodeAt(b, at)
		if err != nil {
			if out == nil {
				return nil, err
			}
			line := 1 + bytes.Count(b[:at], []byte{'\n'})
			out.Problems = append(out.Problems, obs.Problem{Line: line, Reason: fmt.Sprintf("after the %d JSON document(s) read: %v", run-1, err)})
			return out, nil
		}
		o := s.observations()
		if out == nil {
			out = o
		} else {
			for _, r := range o.Records {
				r.Variant = strings.TrimSpace(r.Variant + fmt.Sprintf(" (run %d)", run))
				out.Add(r)
			}
			out.Problems = append(out.Problems, o.Problems...)
			out.Failures = append(out.Failures, o.Failures...)
			for _, h := range o.Hardware.Hosts {
				out.Hardware.AddHost(h)
			}
		}
		if s.cut != nil {
			return out, nil // the document was cut off: nothing after it is a document
		}
		rest := bytes.TrimLeft(b[end:], " \t\r\n")
		if len(rest) == 0 {
			if run > 1 {
				out.Notes = append(out.Notes, fmt.Sprintf("%d iperf3 JSON documents (runs) in the file, read one after another; the second and later are named (run N)", run))
			}
			return out, nil
		}
		at = len(b) - len(rest)
		if rest[0] != '{' {
			line := 1 + bytes.Count(b[:at], []byte{'\n'})
			out.Problems = append(out.Problems, obs.Problem{Line: line, Reason: "text after the JSON document that is no other document: not read", Text: string(rest[:min(len(rest), 60)])})
			return out, nil
		}
	}
}

func pathOf(protocol string) string {
	if strings.EqualFold(protocol, "TCP") {
		return "host-tcp"
	}
	return ""
}

func (s *Summary) observations() *obs.Output {
	out := &obs.Output{Tool: Tool, Version: strings.TrimPrefix(s.Version, "iperf "), Test: strings.ToLower(s.Protocol) + " stream"}
	if s.SystemInfo != "" {
		f := strings.Fields(s.SystemInfo)
		if len(f) > 1 {
			out.Hardware.AddHost(f[1])
			out.Hardware.Mark("hosts", s.startLine)
		}
	}
	if s.Reverse {
		out.Notes = append(out.Notes, "reverse mode (-R): the server sent, the client received")
	}
	bs := s.BlockSize
	path := pathOf(s.Protocol)
	var samples []float64
	for _, iv := range s.Intervals {
		if !iv.Omitted && iv.Rate > 0 && bs > 0 {
			samples = append(samples, float64(bs)/iv.Rate)
		}
	}
	add := func(side string, line int, bytesN, secs, rate float64) {
		if rate <= 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("line %d: the %s sum has no rate (%v bytes in %v s): no record", line, side, bytesN, secs))
			return
		}
		r := obs.Record{Line: line, Test: out.Test, Variant: side, Metric: obs.Bandwidth, Bytes: bs, Rate: rate, Path: path,
			Extra: map[string]float64{"transfer_bytes": bytesN, "seconds": secs}}
		if s.Streams > 0 {
			r.Extra["streams"] = float64(s.Streams)
		}
		if bs > 0 {
			r.Time, r.Central = float64(bs)/rate, "mean"
			r.Samples = samples
		} else {
			r.BytesNote = "blksize not in the document"
		}
		if side == "sender" && s.Retransmits > 0 {
			r.Extra["retransmits"] = float64(s.Retransmits)
		}
		if s.CPU.HostTotal > 0 || s.CPU.RemoteTotal > 0 {
			r.Extra["cpu_host_percent"], r.Extra["cpu_remote_percent"] = s.CPU.HostTotal, s.CPU.RemoteTotal
			if bs > 0 && bytesN > 0 {
				// Percent of one CPU over the test's seconds, per write, both ends.
				r.CPU = (s.CPU.HostTotal + s.CPU.RemoteTotal) / 100 * secs * float64(bs) / bytesN
			}
		}
		out.Add(r)
	}
	if s.hasEnd && s.cut == nil {
		if s.sentLine > 0 {
			add("sender", s.sentLine, s.SentBytes, s.SentSeconds, s.SentRate)
		}
		if s.receivedLine > 0 && (s.Protocol != "UDP" || s.ReceivedRate != s.SentRate) {
			add("receiver", s.receivedLine, s.ReceivedBytes, s.ReceivedSeconds, s.ReceivedRate)
		}
	} else {
		kept, dropped := 0, 0
		for _, iv := range s.Intervals {
			if iv.Rate <= 0 {
				dropped++
				continue
			}
			r := obs.Record{Line: iv.Line, Test: out.Test, Variant: "interval", Metric: obs.Bandwidth, Bytes: bs, Rate: iv.Rate, Path: path,
				Extra: map[string]float64{"start_s": iv.Start, "end_s": iv.End, "transfer_bytes": iv.Bytes}}
			if iv.Omitted {
				r.Variant = "interval (omitted)"
			}
			if bs > 0 {
				r.Time, r.Central = float64(bs)/iv.Rate, "mean"
			}
			if out.Add(r) {
				kept++
			} else {
				dropped++
			}
		}
		if s.cut != nil {
			why := fmt.Sprintf("; the %d intervals before it are kept, one record each", kept)
			if dropped > 0 {
				why += fmt.Sprintf(" (%d more without a rate that can be read are not)", dropped)
			}
			out.Problems = append(out.Problems, obs.Problem{Line: s.cutLine, Reason: s.cut.Error() + why})
		} else {
			out.Notes = append(out.Notes, "no end summary: the intervals are kept, one record each")
		}
	}
	if s.Error != "" {
		out.Failures = append(out.Failures, obs.Problem{Line: s.errorLine, Text: s.Error, Reason: "iperf3 reported an error"})
	}
	return out
}

func (t *TextRun) observations() *obs.Output {
	out := &obs.Output{Tool: Tool, Test: strings.ToLower(t.Protocol) + " stream"}
	path := pathOf(t.Protocol)
	var bs int64
	note := ""
	if t.Protocol == "TCP" {
		bs, note = DefaultTCPBlockSize, "iperf3's default TCP write size (128 KiB); the text output does not print -l"
	} else {
		note = "the text output does not print the datagram size"
	}
	var samples []float64
	for _, iv := range t.Intervals {
		if !iv.Omitted && iv.Rate > 0 && bs > 0 {
			samples = append(samples, float64(bs)/iv.Rate)
		}
	}
	for _, row := range t.Summary {
		if row.Rate <= 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("line %d: %s row without a rate: no record", row.Line, row.Side))
			continue
		}
		r := obs.Record{Line: row.Line, Test: out.Test, Variant: row.Side, Metric: obs.Bandwidth, Bytes: bs, BytesNote: note, Rate: row.Rate,
			Path: path, Extra: map[string]float64{"transfer_bytes": row.Bytes, "seconds": row.End - row.Start}, Fields: row.Fields}
		if t.Streams > 0 {
			r.Extra["streams"] = float64(t.Streams)
		}
		if t.Role == "server" {
			r.Variant += " (server side)"
		}
		if row.Retr >= 0 && row.Side == "sender" {
			r.Extra["retransmits"] = float64(row.Retr)
		}
		if bs > 0 {
			r.Time, r.Central = float64(bs)/row.Rate, "mean"
			r.Samples = samples
		}
		out.Add(r)
	}
	if len(t.Summary) == 0 {
		// No summary (an interrupted client): the intervals are the results.
		for _, row := range t.Intervals {
			if row.Rate <= 0 {
				continue
			}
			r := obs.Record{Line: row.Line, Test: out.Test, Variant: "interval", Metric: obs.Bandwidth, Bytes: bs, BytesNote: note, Rate: row.Rate,
				Path: path, Extra: map[string]float64{"start_s": row.Start, "end_s": row.End, "transfer_bytes": row.Bytes}, Fields: row.Fields}
			if row.Omitted {
				r.Variant = "interval (omitted)"
			}
			if bs > 0 {
				r.Time, r.Central = float64(bs)/row.Rate, "mean"
			}
			out.Add(r)
		}
		if len(out.Records) > 0 {
			out.Notes = append(out.Notes, "no sender/receiver summary: the intervals are kept, one record each")
		}
	}
	for _, e := range t.Errors {
		out.Failures = append(out.Failures, obs.Problem{Line: e.N, Text: e.Text, Reason: "iperf3 reported an error"})
	}
	for _, s := range t.Skipped {
		out.Problems = append(out.Problems, obs.Problem{Line: s.N, Text: s.Text, Reason: s.Reason})
	}
	return out
}
