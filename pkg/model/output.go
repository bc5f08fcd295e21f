package model

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// JSONStage is one stage in the JSON contract of `gpupath model`.
type JSONStage struct {
	Name     string  `json:"name"`
	Letter   string  `json:"letter"`
	Side     string  `json:"side"`
	Latency  float64 `json:"latency_s"`
	Alpha    float64 `json:"alpha_s"`
	CPU      float64 `json:"cpu_s"`
	DDRBytes float64 `json:"ddr_bytes"`
	Copy     bool    `json:"copy"`
	// Inactive: the stage does not run at this size (a software stack's
	// other protocol does).
	Inactive bool `json:"inactive,omitempty"`
}

// JSONResult is one path × size in the JSON contract of `gpupath model`
// (README, "Commands"). Infeasible results carry only path, bytes, feasible and reason.
// Fields after "stages" extend the contract.
type JSONResult struct {
	Path          string      `json:"path"`
	Bytes         int64       `json:"bytes"`
	Feasible      bool        `json:"feasible"`
	Reason        string      `json:"reason,omitempty"`
	Latency       *float64    `json:"latency_s,omitempty"`
	Pipelined     *float64    `json:"pipelined_latency_s,omitempty"`
	Bandwidth     *float64    `json:"bandwidth_Bps,omitempty"`
	CPU           *float64    `json:"cpu_s,omitempty"`
	DDRBytes      *float64    `json:"ddr_bytes,omitempty"`
	Copies        *int        `json:"copies,omitempty"`
	Crossings     *int        `json:"pcie_crossings,omitempty"`
	Stages        []JSONStage `json:"stages,omitempty"`
	Bottleneck    string      `json:"bottleneck,omitempty"`
	LineRate      *float64    `json:"line_rate_Bps,omitempty"`
	Cores         *float64    `json:"cores_at_line_rate,omitempty"`
	CoresSender   *float64    `json:"cores_sender,omitempty"`
	CoresReceiver *float64    `json:"cores_receiver,omitempty"`
	Chunks        *int        `json:"chunks,omitempty"`
	StepByStep    *float64    `json:"step_latency_s,omitempty"`
	Registration  *float64    `json:"registration_s,omitempty"`
	// Note says what the figures assume (Result.Note).
	Note string `json:"note,omitempty"`
	// MessageBound, MessagesPerCore and CoresNote: where the message
	// rate binds, cores_at_line_rate is left out and one core's message
	// rate given instead.
	MessageBound    bool     `json:"message_bound,omitempty"`
	MessagesPerCore *float64 `json:"messages_per_core_s,omitempty"`
	CoresNote       string   `json:"cores_note,omitempty"`
}

// CoresNote says why cores at line rate are not given where the message
// rate binds.
const CoresNote = "the message rate binds at this size (per-message or per-packet work, not the bytes, sets the line rate): cores at line rate do not apply; messages_per_core_s is what one core of the busier side handles"

// JSON converts a result to its contract form.
func (r Result) JSON() JSONResult {
	j := JSONResult{Path: r.Path, Bytes: int64(r.Bytes), Feasible: r.Feasible, Reason: r.Reason}
	if !r.Feasible {
		return j
	}
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	j.Latency, j.Pipelined, j.Bandwidth = f(float64(r.Latency)), f(float64(r.Pipelined)), f(finite(float64(r.Bandwidth)))
	j.CPU, j.DDRBytes, j.Copies, j.Crossings = f(float64(r.CPU)), f(r.DDRBytes), i(r.Copies), i(r.Crossings)
	j.Bottleneck, j.LineRate = r.Bottleneck, f(finite(float64(r.LineRate)))
	j.Chunks = i(r.Chunks)
	if r.MessageBound {
		j.MessageBound, j.CoresNote = true, CoresNote
	} else {
		j.Cores, j.CoresSender, j.CoresReceiver = f(r.Cores), f(r.CoresSender), f(r.CoresReceiver)
	}
	if r.MessagesPerCore > 0 {
		j.MessagesPerCore = f(r.MessagesPerCore)
	}
	j.StepByStep, j.Registration, j.Note = f(float64(r.StepByStep)), f(float64(r.Registration)), r.Note
	j.Stages = make([]JSONStage, len(r.Stages))
	for k, st := range r.Stages {
		j.Stages[k] = JSONStage{Name: st.Name, Letter: st.Letter, Side: string(st.Side), Latency: float64(st.Latency),
			Alpha: float64(st.Alpha), CPU: float64(st.CPU), DDRBytes: st.DDRBytes, Copy: st.Copy, Inactive: st.Inactive}
	}
	return j
}

func finite(v float64) float64 {
	if math.IsInf(v, 1) {
		return math.MaxFloat64
	}
	return v
}

// WriteJSON writes {"scenario": {...}, "results": [...]} as `gpupath model --format json` does.
func WriteJSON(w io.Writer, s *Scenario, results []Result) error {
	return WriteJSONContext(context.Background(), w, s, results)
}

// Formats are the output formats of Write.
var Formats = []string{"table", "csv", "json"}

// Write writes results in format (table, csv or json: WriteTable, WriteCSV,
// WriteJSONContext), made whole before its one write so that a stop (ctx
// done: SIGINT or SIGTERM in a command) writes nothing and returns ctx's
// error.
func Write(ctx context.Context, w io.Writer, format string, s *Scenario, results []Result) error {
	if format == "json" {
		// Made whole before its one write already: not copied once more.
		return WriteJSONContext(ctx, w, s, results)
	}
	var b bytes.Buffer
	var err error
	switch format {
	case "table":
		err = WriteTable(&b, s, results)
	case "csv":
		err = WriteCSV(&b, s, results)
	default:
		return fmt.Errorf("unknown format %q (use %s)", format, strings.Join(Formats, ", "))
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

// WriteJSONContext is WriteJSON that stops when ctx is done, checking it
// every CheckEvery results while it converts and encodes them; the document
// is made whole before its one write, so a stop writes nothing. The results
// are encoded one by one at their depth (the same bytes as one indented
// encoding, without re-indenting a document of hundreds of megabytes).
func WriteJSONContext(ctx context.Context, w io.Writer, s *Scenario, results []Result) error {
	out := struct {
		Scenario map[string]any  `json:"scenario"`
		Results  json.RawMessage `json:"results"` // null here: spliced in below
		// Base, Given and Warnings say how the scenario was resolved: the
		// preset it starts from, the keys given (file, --set) with where,
		// and what resolution noticed.
		Base     string      `json:"base,omitempty"`
		Given    []JSONGiven `json:"given,omitempty"`
		Warnings []string    `json:"warnings,omitempty"`
	}{Scenario: s.Map(), Base: s.Base(), Given: jsonGiven(s), Warnings: s.Warnings()}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	// The one top-level key at two spaces after a newline (string values
	// hold no raw newline, deeper keys more spaces).
	key := []byte("\n  \"results\": ")
	at := bytes.Index(head.Bytes(), append(key, "null"...))
	if at < 0 {
		return errors.New("model: JSON output: no results key") // cannot happen
	}
	var b bytes.Buffer
	b.Write(head.Bytes()[:at+len(key)])
	if len(results) == 0 {
		b.WriteString("[]")
	} else {
		var one bytes.Buffer
		el := json.NewEncoder(&one)
		el.SetIndent("    ", "  ")
		el.SetEscapeHTML(false)
		b.WriteByte('[')
		for i, r := range results {
			if i%CheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			one.Reset()
			if err := el.Encode(r.JSON()); err != nil {
				return err
			}
			b.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		}
		b.WriteString("\n  ]")
	}
	b.Write(head.Bytes()[at+len(key)+len("null"):])
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// JSONGiven is one key given to the scenario, in the JSON of `gpupath
// model`: its value as resolved and where it was given.
type JSONGiven struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

func jsonGiven(s *Scenario) []JSONGiven {
	var out []JSONGiven
	for _, r := range s.Resolution() {
		if r.Rule == RuleGiven {
			out = append(out, JSONGiven{Key: r.Key, Value: r.Value, Source: r.Source})
		}
	}
	return out
}

// GivenLine says in one line what was given over the base preset
// ("given over preset default: nic.kind=ib (--set), network.hops=0
// (p.yaml:4)"), "" when nothing was.
func GivenLine(s *Scenario) string {
	var parts []string
	for _, g := range jsonGiven(s) {
		if g.Key == "name" || g.Key == "description" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%s (%s)", g.Key, g.Value, g.Source))
	}
	if len(parts) == 0 {
		return ""
	}
	return "given over preset " + s.Base() + ": " + strings.Join(parts, ", ")
}

// CSVHeader is the header row of WriteCSV.
var CSVHeader = []string{"scenario", "path", "bytes", "feasible", "latency_s", "pipelined_latency_s", "bandwidth_Bps",
	"bottleneck", "line_rate_Bps", "cpu_s", "cpu_sender_s", "cpu_receiver_s", "cores_at_line_rate",
	"ddr_bytes", "copies", "pcie_crossings", "chunks", "reason", "step_latency_s", "registration_s",
	"message_bound", "messages_per_core_s", "note"}

// WriteCSV writes one row per path × size, with a header.
func WriteCSV(w io.Writer, s *Scenario, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	g := units.Cell
	for _, r := range results {
		row := []string{s.Name, r.Path, strconv.FormatInt(int64(r.Bytes), 10), strconv.FormatBool(r.Feasible)}
		if r.Feasible {
			cores, mpc := g(r.Cores), ""
			if r.MessageBound {
				cores = "" // the message rate binds: message_bound and messages_per_core_s say so
			}
			if r.MessagesPerCore > 0 {
				mpc = g(r.MessagesPerCore)
			}
			row = append(row, g(float64(r.Latency)), g(float64(r.Pipelined)), g(finite(float64(r.Bandwidth))), r.Bottleneck,
				g(finite(float64(r.LineRate))), g(float64(r.CPU)), g(float64(r.CPUSender)), g(float64(r.CPUReceiver)), cores,
				g(r.DDRBytes), strconv.Itoa(r.Copies), strconv.Itoa(r.Crossings), strconv.Itoa(r.Chunks), "",
				g(float64(r.StepByStep)), g(float64(r.Registration)), strconv.FormatBool(r.MessageBound), mpc, r.Note)
		} else {
			row = append(row, "", "", "", "", "", "", "", "", "", "", "", "", "", r.Reason, "", "", "", "", "")
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTable writes results as aligned columns in human units, one block
// per path; an infeasible path gets one line with its reason.
func WriteTable(w io.Writer, s *Scenario, results []Result) error {
	fmt.Fprintf(w, "scenario: %s — %s\n", s.Name, s.Description)
	if g := GivenLine(s); g != "" {
		fmt.Fprintln(w, g)
	}
	for _, warn := range s.Warnings() {
		fmt.Fprintln(w, "warning: "+warn)
	}
	fmt.Fprintf(w, "latency: as the hardware moves one message (device stages overlap packet by packet); step by step: Σ of the stages, each finishing before the next;\npipelined: in %s software chunks; bandwidth: streaming, with its bottleneck; cores: CPU cores both nodes need to carry the line rate (—: the message rate binds);\nDDR B/B: payload bytes DMA engines and CPUs read or write in DDR per payload byte, as if every access reached DDR (DDIO's last-level-cache hits and write-allocate reads are not modeled);\nPCIe: payload transfers over PCIe; software stack: %s\n\n", s.Pipeline.Chunk.Human(), s.Software.Stack)
	t := &table{right: []bool{false, true, true, true, true, true, true, true, true, true, true, false}}
	t.add("path", "size", "latency", "step by step", "pipelined", "bandwidth", "CPU/msg", "cores", "DDR B/B", "copies", "PCIe", "bottleneck")
	var notes []string
	prev, bound := "", false
	noted := map[string]bool{}
	for _, r := range results {
		first := r.Path != prev
		if first && prev != "" {
			t.add()
		}
		prev = r.Path
		if !r.Feasible {
			if first {
				t.add(r.Path, "—", "infeasible (see below)")
				notes = append(notes, r.Path+": "+r.Reason)
			}
			continue
		}
		if r.Note != "" && !noted[r.Path+r.Note] {
			noted[r.Path+r.Note] = true
			notes = append(notes, r.Path+": note: "+r.Note)
		}
		ddr := units.FormatSig(r.DDRBytes/float64(r.Bytes), 2)
		cores := humanCores(r.Cores)
		if r.MessageBound {
			cores, bound = "—", true
		}
		t.add(r.Path, r.Bytes.Human(), r.Latency.Human(), r.StepByStep.Human(), r.Pipelined.Human(), r.Bandwidth.Human(), r.CPU.Human(),
			cores, ddr, strconv.Itoa(r.Copies), strconv.Itoa(r.Crossings), r.Bottleneck)
	}
	if bound {
		notes = append(notes, "cores —: "+CoresNote+" (the JSON and CSV give messages_per_core_s)")
	}
	if err := t.write(w); err != nil {
		return err
	}
	for _, n := range notes {
		if _, err := fmt.Fprintf(w, "\n%s\n", wrap(n, 100, "    ")); err != nil {
			return err
		}
	}
	return nil
}

// table aligns columns: text left, numbers right.
type table struct {
	rows  [][]string
	right []bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) error {
	width := map[int]int{}
	for _, r := range t.rows {
		if len(r) < 4 { // short rows (infeasible, blank) do not set widths past their first cell
			if len(r) > 0 && utf8Len(r[0]) > width[0] {
				width[0] = utf8Len(r[0])
			}
			continue
		}
		for i, c := range r {
			if l := utf8Len(c); l > width[i] {
				width[i] = l
			}
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		for i, c := range r {
			pad := width[i] - utf8Len(c)
			if pad < 0 {
				pad = 0
			}
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] && len(r) >= 4 {
				b.WriteString(strings.Repeat(" ", pad) + c)
			} else if i == len(r)-1 {
				b.WriteString(c)
			} else {
				b.WriteString(c + strings.Repeat(" ", pad))
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

func utf8Len(s string) int { return len([]rune(s)) }

func humanCores(c float64) string {
	if c < 0.01 {
		return "<0.01"
	}
	if c >= 100 {
		return strconv.FormatFloat(c, 'f', 0, 64)
	}
	return units.FormatSig(c, 2)
}

// wrap is WrapText's lines joined, each after the first indented.
func wrap(text string, width int, indent string) string {
	return strings.Join(WrapText(text, width), "\n"+indent)
}
