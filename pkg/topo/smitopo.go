package topo

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// SMIMatrix is the output of `nvidia-smi topo -m`: the device labels
// ("GPU0" … "NIC9"), the class of every pair, the affinity columns of the
// GPU rows and the NIC legend.
type SMIMatrix struct {
	Devices []string  `json:"devices"`
	Links   [][]Class `json:"links"` // Links[i][j] connects Devices[i] and Devices[j]
	// CPUAffinity, NUMAAffinity and GPUNUMAID hold the affinity columns by
	// device label, as printed ("0-55,112-167", "0", "N/A").
	CPUAffinity  map[string]string `json:"cpu_affinity,omitempty"`
	NUMAAffinity map[string]string `json:"numa_affinity,omitempty"`
	GPUNUMAID    map[string]string `json:"gpu_numa_id,omitempty"`
	// NICNames maps "NIC0" to its device name ("mlx5_0") from the NIC legend.
	NICNames map[string]string `json:"nic_names,omitempty"`
}

// Link returns the class between two device labels.
func (m *SMIMatrix) Link(a, b string) (Class, bool) {
	i, j := m.index(a), m.index(b)
	if i < 0 || j < 0 {
		return "", false
	}
	return m.Links[i][j], true
}

func (m *SMIMatrix) index(label string) int {
	for i, d := range m.Devices {
		if d == label {
			return i
		}
	}
	return -1
}

var (
	ansiRe  = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
	labelRe = regexp.MustCompile(`^(GPU|NIC)\d+$`)
	// The NIC legend: "  NIC0: mlx5_0".
	nicLegendRe = regexp.MustCompile(`^\s*(NIC\d+):\s*(\S+)\s*$`)
)

// ParseSMIMatrix parses the text of `nvidia-smi topo -m`, whether its
// columns are separated by tabs (as nvidia-smi writes them) or by spaces
// (copied from a terminal), with or without the ANSI underline codes of the
// header line. The header names the devices; each device row holds one class
// per device, then the affinity columns (GPU rows only).
func ParseSMIMatrix(r io.Reader) (*SMIMatrix, error) {
	m := &SMIMatrix{
		CPUAffinity: map[string]string{}, NUMAAffinity: map[string]string{},
		GPUNUMAID: map[string]string{}, NICNames: map[string]string{},
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	rows := map[string]bool{}
	line := 0
	for sc.Scan() {
		line++
		text := ansiRe.ReplaceAllString(sc.Text(), "")
		text = strings.TrimRight(text, "\r")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		if m.Devices == nil {
			// The header: the first line whose first field is a device label.
			if labelRe.MatchString(fields[0]) {
				for _, f := range fields {
					if !labelRe.MatchString(f) {
						break
					}
					m.Devices = append(m.Devices, f)
				}
				m.Links = make([][]Class, len(m.Devices))
			}
			continue
		}
		if mm := nicLegendRe.FindStringSubmatch(text); mm != nil {
			m.NICNames[mm[1]] = mm[2]
			continue
		}
		i := m.index(fields[0])
		if i < 0 || !startsRow(text) {
			continue
		}
		n := len(m.Devices)
		if len(fields) < n+1 {
			return nil, fmt.Errorf("topo: nvidia-smi matrix line %d: row %s has %d cells, want %d", line, fields[0], len(fields)-1, n)
		}
		if rows[fields[0]] {
			return nil, fmt.Errorf("topo: nvidia-smi matrix line %d: row %s repeated", line, fields[0])
		}
		rows[fields[0]] = true
		m.Links[i] = make([]Class, n)
		for j := 0; j < n; j++ {
			c, err := ParseClass(fields[1+j])
			if err != nil {
				return nil, fmt.Errorf("topo: nvidia-smi matrix line %d: %w", line, err)
			}
			m.Links[i][j] = c
		}
		aff := fields[n+1:]
		if len(aff) > 0 {
			m.CPUAffinity[fields[0]] = aff[0]
		}
		if len(aff) > 1 {
			m.NUMAAffinity[fields[0]] = aff[1]
		}
		if len(aff) > 2 {
			m.GPUNUMAID[fields[0]] = aff[2]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("topo: nvidia-smi matrix: %w", err)
	}
	if m.Devices == nil {
		return nil, fmt.Errorf("topo: no nvidia-smi topology matrix (no header with GPU0/NIC0 labels)")
	}
	for i, d := range m.Devices {
		if m.Links[i] == nil {
			return nil, fmt.Errorf("topo: nvidia-smi matrix has no row for %s", d)
		}
		if m.Links[i][i] != Self {
			return nil, fmt.Errorf("topo: nvidia-smi matrix: %s is %s to itself, want X", d, m.Links[i][i])
		}
	}
	return m, nil
}

// startsRow reports whether a line begins with its label (rows are not
// indented; the legend is).
func startsRow(line string) bool {
	return len(line) > 0 && line[0] != ' ' && line[0] != '\t'
}

// ParseSMIMatrixBytes is ParseSMIMatrix on a byte slice.
func ParseSMIMatrixBytes(b []byte) (*SMIMatrix, error) { return ParseSMIMatrix(bytes.NewReader(b)) }
