package iperf3

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// TextRun is what a plain (not -J) iperf3 client or server printed.
type TextRun struct {
	// Protocol is "TCP" or "UDP" (UDP when the table has datagrams).
	Protocol string
	// Role is "client" or "server" ("Server listening on" seen).
	Role string
	// Streams counts the "[ N] local ... connected to ..." lines.
	Streams int
	// Intervals are the per-interval rows of the sum (the [SUM] rows with
	// parallel streams, else the single stream's), omitted ones included.
	Intervals []TextRow
	// Summary are the rows after the last "- - -" separator that end in
	// sender or receiver (or, in old UDP output, the one summary row): of
	// the [SUM] when there is one, else of the single stream.
	Summary []TextRow
	// Errors are lines with iperf3's own error messages ("iperf3: error -
	// ...", "iperf3: interrupt - ...").
	Errors []Line
	// Skipped are table lines that could not be read.
	Skipped []Line
}

// TextRow is one row of the table.
type TextRow struct {
	Line       int
	Stream     string  // "5", "SUM"
	Start, End float64 // seconds
	Bytes      float64 // the Transfer column
	Rate       float64 // bytes per second
	Retr       int     // -1 when not printed
	Omitted    bool
	Side       string // "sender", "receiver", "" (interval rows)
	Fields     []string
}

// Line is a line of the input that was noted.
type Line struct {
	N      int
	Text   string
	Reason string
}

var (
	// ctime-style stamp of --timestamps: "Mon May 19 17:17:20 2025 ".
	stampRe = regexp.MustCompile(`^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4} `)
	rowRe   = regexp.MustCompile(`^\[\s*(\d+|SUM)\]\s+(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s+sec\s+(\d+(?:\.\d+)?)\s+(Bytes|KBytes|MBytes|GBytes|TBytes)\s+(\d+(?:\.\d+)?)\s+(bits/sec|Kbits/sec|Mbits/sec|Gbits/sec|Tbits/sec)(.*)$`)
	connRe  = regexp.MustCompile(`^\[\s*\d+\] local \S+ port \d+ connected (?:to|with) `)
)

var byteUnits = map[string]float64{"Bytes": 1, "KBytes": 1 << 10, "MBytes": 1 << 20, "GBytes": 1 << 30, "TBytes": 1 << 40}
var bitUnits = map[string]float64{"bits/sec": 1, "Kbits/sec": 1e3, "Mbits/sec": 1e6, "Gbits/sec": 1e9, "Tbits/sec": 1e12}

// looksText tells whether b looks like iperf3's text output.
func looksText(lines []string) bool {
	for _, l := range lines {
		l = stampRe.ReplaceAllString(strings.TrimSpace(l), "")
		if strings.HasPrefix(l, "[ ID] Interval") || strings.HasPrefix(l, "Connecting to host ") && strings.Contains(l, ", port ") ||
			strings.HasPrefix(l, "Server listening on ") || rowRe.MatchString(l) {
			return true
		}
	}
	return false
}

// ParseText reads the text of an iperf3 client or server run. Rows it
// cannot read are listed in Skipped with their lines; lines with iperf3's
// errors in Errors.
func ParseText(lines []string) *TextRun {
	r := &TextRun{Protocol: "TCP", Role: "client"}
	var (
		rows      []TextRow
		afterSep  bool
		sumSeen   bool
		udp       bool
		headerCol string
	)
	for i, raw := range lines {
		n := i + 1
		l := strings.TrimSpace(stampRe.ReplaceAllString(strings.TrimLeft(raw, " "), ""))
		if strings.HasPrefix(l, "^C") {
			l = strings.TrimSpace(strings.TrimPrefix(l, "^C"))
		}
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "Server listening on"):
			r.Role = "server"
			continue
		case strings.HasPrefix(l, "iperf3: ") || strings.HasPrefix(l, "iperf3 error"):
			r.Errors = append(r.Errors, Line{N: n, Text: l})
			continue
		case strings.HasPrefix(l, "[ ID]"):
			headerCol = l
			if strings.Contains(l, "Datagrams") || strings.Contains(l, "Jitter") {
				udp = true
			}
			continue
		case strings.HasPrefix(l, "- - -"):
			afterSep = true
			continue
		case connRe.MatchString(l):
			r.Streams++
			continue
		}
		if !strings.HasPrefix(l, "[") {
			continue
		}
		m := rowRe.FindStringSubmatch(l)
		if m == nil {
			if headerCol != "" && strings.Contains(l, " sec ") {
				r.Skipped = append(r.Skipped, Line{N: n, Text: l, Reason: "a table row that cannot be read"})
			}
			continue
		}
		row := TextRow{Line: n, Stream: m[1], Retr: -1, Fields: strings.Fields(l)}
		row.Start, _ = strconv.ParseFloat(m[2], 64)
		row.End, _ = strconv.ParseFloat(m[3], 64)
		v, _ := strconv.ParseFloat(m[4], 64)
		row.Bytes = v * byteUnits[m[5]]
		v, _ = strconv.ParseFloat(m[6], 64)
		row.Rate = v * bitUnits[m[7]] / 8
		rest := strings.Fields(m[8])
		for _, f := range rest {
			switch f {
			case "sender", "receiver":
				row.Side = f
			case "(omitted)":
				row.Omitted = true
			}
		}
		if !udp && len(rest) > 0 {
			if k, err := strconv.Atoi(rest[0]); err == nil {
				row.Retr = k
			}
		}
		if udp && afterSep && row.Side == "" && strings.Contains(m[8], "%)") {
			row.Side = "receiver" // old iperf3: the one UDP summary is the server's report
		}
		if row.End < row.Start {
			r.Skipped = append(r.Skipped, Line{N: n, Text: l, Reason: fmt.Sprintf("interval %v-%v ends before it starts", row.Start, row.End)})
			continue
		}
		if m[1] == "SUM" {
			sumSeen = true
		}
		rows = append(rows, row)
	}
	if udp {
		r.Protocol = "UDP"
	}
	for _, row := range rows {
		if sumSeen != (row.Stream == "SUM") {
			continue
		}
		if row.Side != "" {
			r.Summary = append(r.Summary, row)
		} else {
			r.Intervals = append(r.Intervals, row)
		}
	}
	return r
}
