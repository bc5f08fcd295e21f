package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"
)

// Writable says whether a directory can be made in dir: dir exists and is
// writable, or can be created. The error is the reason, without the path.
func Writable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return pathReason(err)
	}
	return pathReason(safeio.CanWrite(dir))
}

// WritableHere is Writable for a default output directory (a command's
// reports, measure's reports/runs) in the working directory: the one
// check, before anything runs, whose error says what cannot be written
// where and how to choose another place (--out). what names what would
// have gone there.
func WritableHere(what, dir string) error {
	if err := Writable(dir); err != nil {
		return fmt.Errorf("cannot write %s into %s here: %v (give --out DIR)", what, dir, err)
	}
	return nil
}

// Taken says whether a write failed because the directory appeared
// meanwhile (the rename of another report).
func Taken(err error) bool {
	return errors.Is(err, ErrExists) || errors.Is(err, os.ErrExist) || errors.Is(err, syscall.ENOTEMPTY)
}

// FreeDir is parent/<scenario>-<UTC date and time> (DirName), a name a
// person can find, with -2, -3 … when it is taken.
func FreeDir(parent, scenario string, at time.Time) string {
	base := filepath.Join(parent, DirName(scenario, at))
	dir := base
	for i := 2; ; i++ {
		if _, err := os.Lstat(dir); err != nil {
			return dir // free (or unusable: writing it says why)
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// pathReason drops the operation and path of an *os.PathError.
func pathReason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
