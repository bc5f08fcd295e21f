package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrRunExists is returned when a run directory already holds a manifest.
var ErrRunExists = errors.New("run directory already holds a run")

// Writer writes one run directory: records to results.jsonl as they come,
// and the manifest whenever it changes. It is what the runner writes
// through, and what an importer of another tool's output would use.
type Writer struct {
	dir string
	f   *os.File
}

// Create makes dir (and its parents) if needed and opens results.jsonl in
// it for appending. A directory that already holds a manifest is refused
// with ErrRunExists.
func Create(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrRunExists)
	}
	f, err := os.OpenFile(filepath.Join(dir, ResultsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{dir: dir, f: f}, nil
}

// Dir is the run directory.
func (w *Writer) Dir() string { return w.dir }

// Append writes one record (see AppendResult).
func (w *Writer) Append(r Result) error { return AppendResult(w.f, r) }

// WriteManifest replaces the run's manifest.json atomically.
func (w *Writer) WriteManifest(m *Manifest) error { return WriteManifest(w.dir, m) }

// Close closes results.jsonl.
func (w *Writer) Close() error { return w.f.Close() }

// AppendResult writes one record as one line with a single write(2): the
// line is in the page cache when it returns, so a crash or SIGKILL of the
// process cannot lose it (a power failure can; there is no fsync). A record
// with a NaN or infinite field is refused (Sanitize).
func AppendResult(w io.Writer, r Result) error {
	if err := r.Sanitize(); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// WriteManifest replaces dir's manifest.json atomically (write, then
// rename), so a reader never sees half a manifest.
func WriteManifest(dir string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp := filepath.Join(dir, ManifestFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, ManifestFile))
}
