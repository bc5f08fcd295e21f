package nbcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Notebook is the part of an nbformat-4 notebook that the checks read.
type Notebook struct {
	Cells    []Cell `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
	NBFormat int `json:"nbformat"`
}

// Cell is one notebook cell.
type Cell struct {
	Type           string   `json:"cell_type"`
	Source         Text     `json:"source"`
	ExecutionCount *int     `json:"execution_count"`
	Outputs        []Output `json:"outputs"`
}

// Output is one output of a code cell: a stream (Name is stdout or stderr),
// display data or an execute result (Data by MIME type), or an error.
type Output struct {
	Type      string          `json:"output_type"`
	Name      string          `json:"name"`
	Text      Text            `json:"text"`
	Data      map[string]Text `json:"data"`
	EName     string          `json:"ename"`
	EValue    string          `json:"evalue"`
	Traceback []string        `json:"traceback"`
}

// Text is notebook text, stored either as one string or as a list of lines.
type Text string

// UnmarshalJSON accepts a string or a list of strings.
func (t *Text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = Text(s)
		return nil
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil {
		// Other JSON (an application/json output): keep it as text.
		*t = Text(b)
		return nil
	}
	*t = Text(strings.Join(parts, ""))
	return nil
}

// Read parses a notebook.
func Read(r io.Reader) (*Notebook, error) {
	var nb Notebook
	if err := json.NewDecoder(r).Decode(&nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %w", err)
	}
	if nb.NBFormat != 4 {
		return nil, fmt.Errorf("nbformat %d: only version 4 is read", nb.NBFormat)
	}
	return &nb, nil
}

// ReadFile parses the notebook at path.
func ReadFile(path string) (*Notebook, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	nb, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return nb, nil
}

// lines splits text into lines without their line ends; a final newline
// does not start another line.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
