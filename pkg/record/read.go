package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SkippedLine is a line of results.jsonl that the reader could not use.
type SkippedLine struct {
	Line   int    `json:"line"` // 1-based
	Reason string `json:"reason"`
}

func (s SkippedLine) String() string { return fmt.Sprintf("line %d: %s", s.Line, s.Reason) }

// RunData is a run directory read back: the manifest, every complete
// record, and the lines that were skipped.
type RunData struct {
	Dir      string
	Manifest Manifest
	Results  []Result
	Skipped  []SkippedLine
}

// maxLine bounds one record line; longer lines are skipped, not loaded.
const maxLine = 1 << 20

// ReadRun reads a run directory. A missing or malformed manifest is an error
// that names the file (and the line and column of a syntax error); a
// missing results.jsonl means no results. Lines of results.jsonl that are
// not complete records — a last line cut off when the run was killed, a
// damaged line — are skipped and listed in Skipped with their line numbers.
func ReadRun(dir string) (*RunData, error) {
	mpath := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(mpath)
	if err != nil {
		return nil, err
	}
	m, err := ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", mpath, err)
	}
	rd := &RunData{Dir: dir, Manifest: *m}
	name := m.Results
	if name == "" || filepath.IsAbs(name) || filepath.Base(name) != name {
		name = ResultsFile // never follow a path out of the run directory
	}
	f, err := os.Open(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return rd, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd.Results, rd.Skipped, err = ReadResults(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return rd, nil
}

// ReadResults reads JSON Lines records. It keeps going past bad lines and
// returns them as skipped: a line that is not one JSON object, a record
// without a probe name or with negative sizes or times, a line over 1 MiB,
// and a last line cut off before its end. Blank lines are ignored. The
// error is only for a failing reader.
func ReadResults(r io.Reader) ([]Result, []SkippedLine, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		results []Result
		skipped []SkippedLine
	)
	for line := 1; ; line++ {
		b, complete, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return results, skipped, err
		}
		if len(b) == 0 && !tooLong && errors.Is(err, io.EOF) {
			return results, skipped, nil
		}
		switch trimmed := bytes.TrimSpace(b); {
		case tooLong:
			skipped = append(skipped, SkippedLine{line, fmt.Sprintf("longer than %d bytes", maxLine)})
		case len(trimmed) == 0:
		default:
			res, why := parseRecord(trimmed)
			if why != "" {
				if !complete {
					why = "cut off (no newline at the end of the file): " + why
				}
				skipped = append(skipped, SkippedLine{line, why})
			} else {
				results = append(results, res)
			}
		}
		if errors.Is(err, io.EOF) {
			return results, skipped, nil
		}
	}
}

// readLine returns one line without its newline; complete is false for a
// last line without a newline; a line over maxLine is consumed and reported
// as tooLong.
func readLine(br *bufio.Reader) (b []byte, complete, tooLong bool, err error) {
	for {
		frag, e := br.ReadSlice('\n')
		if !tooLong {
			if len(b)+len(frag) > maxLine+1 {
				tooLong, b = true, nil
			} else {
				b = append(b, frag...)
			}
		}
		switch {
		case e == nil:
			if !tooLong {
				b = b[:len(b)-1]
			}
			return b, true, tooLong, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return b, false, tooLong, e
		}
	}
}

// parseRecord decodes one record; a non-empty reason says why it is not one.
func parseRecord(b []byte) (Result, string) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return r, "not a JSON record: " + err.Error()
	}
	if dec.More() {
		return r, "data after the JSON record"
	}
	switch {
	case r.Probe == "":
		return r, "record without a probe name"
	case r.Bytes < 0:
		return r, "negative size"
	case r.Iterations < 0:
		return r, "negative iteration count"
	case r.MinS < 0 || r.MedianS < 0 || r.P99S < 0:
		return r, "negative time"
	}
	return r, ""
}
