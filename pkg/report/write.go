package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"
)

// OutputError is a failure to write the report where it was asked to go: a
// directory that cannot be created or written, or one that already holds
// something. Nothing is left behind when it is returned.
type OutputError struct {
	Dir string
	Err error
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("cannot write the report to %s: %v", e.Dir, e.Err)
}
func (e *OutputError) Unwrap() error { return e.Err }

// ErrExists is returned (inside an OutputError) when the target directory
// exists and is not empty.
var ErrExists = errors.New("it exists and is not empty (choose another --out, or remove it)")

// WriteDir writes the report into the directory dir, atomically: the files
// are written into a new temporary directory beside dir, which is renamed to
// dir once every file is complete. dir must not exist, or be empty; its
// parent directories are created as needed. On any error nothing is left:
// neither the temporary directory nor the parents it created.
func (r *Report) WriteDir(dir string) (err error) {
	dir = filepath.Clean(dir)
	fail := func(e error) error { return &OutputError{Dir: dir, Err: e} }
	if fi, e := os.Stat(dir); e == nil {
		if !fi.IsDir() {
			return fail(errors.New("it exists and is not a directory"))
		}
		ents, e := os.ReadDir(dir)
		if e != nil {
			return fail(e)
		}
		if len(ents) > 0 {
			return fail(ErrExists)
		}
		return r.writeInto(dir)
	} else if !errors.Is(e, os.ErrNotExist) {
		return fail(e)
	}
	created, e := mkdirParents(filepath.Dir(dir))
	defer func() {
		if err != nil {
			removeCreated(created)
		}
	}()
	if e != nil {
		return fail(e)
	}
	tmp, e := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if e != nil {
		return fail(e)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	for _, f := range r.Files {
		if strings.ContainsAny(f.Name, `/\`) || f.Name == "" || f.Name[0] == '.' {
			return fmt.Errorf("report: bad file name %q", f.Name)
		}
		if e := safeio.WriteFile(filepath.Join(tmp, f.Name), f.Data, false); e != nil {
			return fail(e)
		}
	}
	if e := os.Chmod(tmp, 0o755); e != nil {
		return fail(e)
	}
	if e := os.Rename(tmp, dir); e != nil {
		return fail(e)
	}
	return nil
}

// writeInto writes the files into dir, an existing empty directory (which
// may not be renamed over: the working directory, a mount point, one in a
// directory the user cannot write). On failure the files written are
// removed and dir is left empty, as it was.
func (r *Report) writeInto(dir string) (err error) {
	var written []string
	defer func() {
		if err != nil {
			for _, w := range written {
				os.Remove(w)
			}
		}
	}()
	for _, f := range r.Files {
		if strings.ContainsAny(f.Name, `/\`) || f.Name == "" || f.Name[0] == '.' {
			return fmt.Errorf("report: bad file name %q", f.Name)
		}
		p := filepath.Join(dir, f.Name)
		// The one writer: a failed write leaves nothing, one that finds
		// a file there already does not touch it.
		if e := safeio.WriteFile(p, f.Data, false); e != nil {
			return &OutputError{Dir: dir, Err: e}
		}
		written = append(written, p)
	}
	return nil
}

// mkdirParents creates dir and its missing parents, and returns the ones it
// created, deepest last.
func mkdirParents(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("%s is not a directory", d)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return created, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// removeCreated removes the directories mkdirParents made, deepest first,
// as long as they are empty.
func removeCreated(created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		if os.Remove(created[i]) != nil {
			return
		}
	}
}

// DirName is the name of a report's directory when none is given:
// <scenario>-<UTC date and time>, a name a person can find, the scenario's
// name made safe (lower-case letters, digits, dots, dashes and underscores,
// at most 48 bytes).
func DirName(scenario string, at time.Time) string {
	return slug(scenario) + "-" + at.UTC().Format("2006-01-02T150405Z")
}

// slug makes a scenario name safe as a directory name.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 48 {
			break
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		return "scenario"
	}
	return s
}
