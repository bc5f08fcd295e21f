package nvbandwidth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// The -j document (json_output.cpp): one "nvbandwidth" object with the
// versions, the device list ("0: NVIDIA H200 (00000000:19:00): (host)"),
// and the test cases, each with its status, the matrix's description and
// the matrix as strings ("26.03", "N/A"). jsoncpp's toStyledString writes
// it indented, keys in sorted order.
type jsonDoc struct {
	NVB *struct {
		Version   string            `json:"version"`
		Devices   []string          `json:"GPU Device list"`
		Error     string            `json:"error"`
		Warning   string            `json:"warning"`
		Testcases []json.RawMessage `json:"testcases"`
	} `json:"nvbandwidth"`
}

type jsonCase struct {
	Name        string     `json:"name"`
	Status      string     `json:"status"`
	Error       string     `json:"error"`
	Description string     `json:"bandwidth_description"`
	Matrix      [][]string `json:"bandwidth_matrix"`
}

var devListRe = regexp.MustCompile(`^\d+: (.+?)(?: \([0-9a-fA-F:.]+\))?(?:: \(([^)]*)\))?$`)

func parseJSON(b []byte) (*obs.Output, error) {
	var d jsonDoc
	if err := json.Unmarshal(b, &d); err != nil {
		line := 1
		if se, ok := err.(*json.SyntaxError); ok {
			line += bytes.Count(b[:min(int(se.Offset), len(b))], []byte{'\n'})
		}
		return nil, fmt.Errorf("%s: line %d: %v", Tool, line, err)
	}
	if d.NVB == nil {
		return nil, obs.NotRecognized(Tool, `a JSON document without "nvbandwidth"`)
	}
	out := &obs.Output{Tool: Tool, Version: d.NVB.Version}
	for _, dv := range d.NVB.Devices {
		if m := devListRe.FindStringSubmatch(dv); m != nil {
			out.Hardware.GPUs = append(out.Hardware.GPUs, m[1])
			if m[2] != "" {
				out.Hardware.AddHost(m[2])
			}
		}
	}
	if d.NVB.Error != "" {
		out.Failures = append(out.Failures, obs.Problem{Line: lineOf(b, d.NVB.Error), Text: d.NVB.Error, Reason: "nvbandwidth reported an error"})
	}
	for _, raw := range d.NVB.Testcases {
		var c jsonCase
		line := lineOf(b, string(raw[:min(len(raw), 1)])) // refined below
		if err := json.Unmarshal(raw, &c); err != nil {
			out.Problems = append(out.Problems, obs.Problem{Line: line, Reason: "a test case that cannot be read: " + err.Error()})
			continue
		}
		line = lineOf(b, `"`+c.Name+`"`)
		if c.Error != "" || c.Status != "" && c.Status != "Passed" && c.Status != "Waived" {
			out.Failures = append(out.Failures, obs.Problem{Line: line, Text: strings.TrimSpace(c.Status + " " + c.Error), Reason: "nvbandwidth test case " + c.Name})
		}
		if c.Description == "" || len(c.Matrix) == 0 {
			continue
		}
		t := titleRe.FindStringSubmatch(c.Description)
		var m *matrix
		switch {
		case t != nil:
			m = &matrix{test: c.Name, kind: t[1], from: t[2], arrow: t[3], to: t[4], extra: extraOf(t[5]), unit: t[6]}
		case localRe.MatchString(c.Description):
			m = &matrix{test: c.Name, kind: localRe.FindStringSubmatch(c.Description)[1], from: "GPU", to: "GPU", arrow: "local", unit: "GB/s", local: true}
		default:
			out.Problems = append(out.Problems, obs.Problem{Line: line, Text: c.Description, Reason: "a matrix description that cannot be read"})
			continue
		}
		for j := range c.Matrix[0] {
			m.cols = append(m.cols, j)
		}
		for r, row := range c.Matrix {
			if _, err := m.row(out, fmt.Sprintf("%d %s", r, strings.Join(row, " ")), line); err != nil {
				out.Problems = append(out.Problems, obs.Problem{Line: line, Reason: fmt.Sprintf("%s row %d: %v", c.Name, r, err)})
			}
		}
	}
	finish(out)
	return out, nil
}

// lineOf is the line of the first occurrence of s in b (1 when absent).
func lineOf(b []byte, s string) int {
	i := bytes.Index(b, []byte(s))
	if i < 0 {
		return 1
	}
	return 1 + bytes.Count(b[:i], []byte{'\n'})
}
