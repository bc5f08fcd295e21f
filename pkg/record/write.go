package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/gpupath/gpupath/internal/termtext"
)

// ErrRunExists is returned when a run directory already holds a manifest.
var ErrRunExists = errors.New("run directory already holds a run")

// ErrNotRunDir is returned when a directory to write a run into holds files
// that no run writes: the user's files are not overwritten or mixed in.
var ErrNotRunDir = errors.New("directory holds files that are not a run's")

// ErrRunLocked is returned when another process writes to the run directory.
var ErrRunLocked = errors.New("another process is writing this run")

// runFiles are the names a run directory holds: what the runner writes, and
// what commands add to it (the diagnosis summary, the host scenario, the
// doctor's record).
var runFiles = map[string]bool{
	ManifestFile: true, ManifestFile + ".tmp": true, ResultsFile: true,
	"summary.txt": true, "host-scenario.yaml": true, "doctor.json": true,
}

// Writer writes one run directory: records to results.jsonl as they come,
// and the manifest whenever it changes. It is what the runner writes
// through, and what an importer of another tool's output would use.
type Writer struct {
	dir string
	f   *os.File
}

// Create makes dir (and its parents) if needed and opens results.jsonl in
// it for appending. A directory that already holds a manifest is refused
// with ErrRunExists; one that holds other files than a run's (a user's
// directory given as --out) with ErrNotRunDir, naming one of them. The
// writer holds an exclusive lock (flock) on results.jsonl until Close: the
// kernel drops it when the process dies, which is how ReadRun tells a run
// still being written from one whose writer was killed.
func Create(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrRunExists)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if !runFiles[e.Name()] {
			return nil, fmt.Errorf("%s: %w (%s); give an empty or new directory", dir, ErrNotRunDir, e.Name())
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, ResultsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrRunLocked)
	}
	return &Writer{dir: dir, f: f}, nil
}

// Dir is the run directory.
func (w *Writer) Dir() string { return w.dir }

// Append writes one record (see AppendResult). A write that fails (a full
// disk) is cut back off the file, so results.jsonl holds whole records
// only and the count of records appended is what is on disk.
func (w *Writer) Append(r Result) error {
	end, serr := w.f.Seek(0, io.SeekEnd)
	err := AppendResult(w.f, r)
	if err != nil && serr == nil {
		w.f.Truncate(end)
	}
	return err
}

// Discard removes an empty results.jsonl and closes it: for a run whose
// first manifest could not be written, so that nothing blocks the name.
func (w *Writer) Discard() {
	if st, err := w.f.Stat(); err == nil && st.Size() == 0 {
		os.Remove(w.f.Name())
	}
	os.Remove(filepath.Join(w.dir, ManifestFile+".tmp"))
	w.f.Close()
}

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
	b, err := termtext.MarshalJSON(r)
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
	b, err := termtext.MarshalJSONIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp := filepath.Join(dir, ManifestFile+".tmp")
	if err := writeFile(tmp, b); err != nil {
		os.Remove(tmp) // a full disk leaves no half manifest behind
		if errors.Is(err, syscall.ENOSPC) && overwrite(filepath.Join(dir, ManifestFile), b) == nil {
			// The disk has no room for a second copy, but the old
			// manifest's blocks are freed as it is truncated: written in
			// place, the run's last state (failed: no space left) is on
			// disk instead of a stale "running" that readers would take
			// for a writer that died.
			return nil
		}
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, ManifestFile)); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeFile is os.WriteFile, a variable so that tests can fail it as a full
// disk does.
var writeFile = func(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }

// overwrite writes b over an existing file in place: the fallback of a
// manifest on a full disk only (a crash while it writes could tear it).
func overwrite(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if e := f.Close(); err == nil {
		err = e
	}
	return err
}
