package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrExists says an output path already holds something (a file, a
// directory, a symbolic link, dangling or not) and replacing it was not
// asked for.
var ErrExists = errors.New("exists (add --force to replace it)")

// ErrNotReplaceable says an output path holds what is never replaced, even
// with --force: a FIFO, a device, a socket. It is an ErrExists (errors.Is),
// so that a caller's test for a destination that is in the way holds.
var ErrNotReplaceable error = notReplaceable{}

type notReplaceable struct{}

func (notReplaceable) Error() string {
	return "is not a regular file or a link, and is never replaced (not even with --force)"
}
func (notReplaceable) Is(target error) bool { return target == ErrExists }

// File is an output file being written: the bytes go to a temporary file
// beside the destination, and only Commit puts them at the destination's
// name (a rename), so a reader never sees half a file and a failed or
// abandoned write (ENOSPC, an interrupt) leaves what was there before.
type File struct {
	f     *os.File
	path  string
	force bool
	done  bool
}

// Create starts an output file at path. Unless force is set, anything
// already at path — a file, a directory, a link (even one that points
// nowhere) — is refused with ErrExists before anything is written. With
// force, a regular file or a link is replaced (a link itself, never the
// file it points to); a directory never is.
func Create(path string, force bool) (*File, error) {
	if err := checkDest(path, force); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{f: f, path: path, force: force}, nil
}

func checkDest(path string, force bool) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s: is a directory", path)
	case !force:
		return fmt.Errorf("%s: %w", path, ErrExists)
	case st.Mode()&os.ModeSymlink == 0 && !st.Mode().IsRegular():
		return fmt.Errorf("%s: %w: %s", path, ErrNotReplaceable, kind(st.Mode()))
	}
	return nil
}

// Write implements io.Writer.
func (w *File) Write(p []byte) (int, error) {
	if writeFault != nil {
		return 0, &fs.PathError{Op: "write", Path: w.f.Name(), Err: writeFault}
	}
	return w.f.Write(p)
}

// writeFault, when set (FailWrites), is what every write of an output file
// fails with.
var writeFault error

// FailWrites makes every Write of an output file fail with err (a full
// disk: syscall.ENOSPC) until restore is called: how a test gives every
// command a disk that fills while it writes, without a file system to
// fill. Not for concurrent tests.
func FailWrites(err error) (restore func()) {
	writeFault = err
	return func() { writeFault = nil }
}

// OutputFailed reports whether err holds a failure of the disk under an
// output being written — full (ENOSPC), over quota (EDQUOT), a file past
// its size limit (EFBIG), an I/O error (EIO) — which is output that could
// not be written (exit 1), never bad input, whatever wraps it.
func OutputFailed(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG, syscall.EIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Commit flushes the file to disk and renames it to its destination. A
// destination that appeared meanwhile is refused unless force was given.
func (w *File) Commit() error {
	if w.done {
		return errors.New("safeio: file already committed or aborted")
	}
	w.done = true
	tmp := w.f.Name()
	err := w.f.Sync()
	if e := w.f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = checkDest(w.path, w.force)
	}
	if err == nil {
		err = os.Rename(tmp, w.path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Abort removes the temporary file; the destination is untouched. It may
// be deferred: after Commit it does nothing.
func (w *File) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	os.Remove(w.f.Name())
}

// WriteFile writes data to path through Create and Commit.
func WriteFile(path string, data []byte, force bool) error {
	return WriteWith(path, force, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith writes path through Create, fill and Commit; an error from fill
// leaves nothing behind.
func WriteWith(path string, force bool, fill func(io.Writer) error) error {
	f, err := Create(path, force)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}

// CheckCreate says, before any work is done, whether Create(path, force)
// would be refused: something at path (unless force; a directory always),
// or a parent directory that does not exist. Commands call it up front so
// a bad destination is bad input, not a failure after the work.
func CheckCreate(path string, force bool) error {
	if err := checkDest(path, force); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s: its directory %s does not exist", path, dir)
	}
	if err != nil {
		return fmt.Errorf("%s: its directory %s: %w", path, dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	if err := CanWrite(dir); err != nil {
		return fmt.Errorf("%s: its directory %s cannot be written (%v)", path, dir, PathReason(err))
	}
	return nil
}

// PathReason is the reason of a path error, without its operation and
// path (a probe file's name says nothing to the user; a message that names
// the directory already needs no second name).
func PathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writableAncestor checks that the nearest directory above path that
// exists can be written: where path is made.
func writableAncestor(path string) error {
	for dir := filepath.Dir(filepath.Clean(path)); ; dir = filepath.Dir(dir) {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("cannot be made: %s is not a directory", dir)
			}
			if err := CanWrite(dir); err != nil {
				return fmt.Errorf("cannot be made: %s cannot be written (%v)", dir, PathReason(err))
			}
			return nil
		}
		if next := filepath.Dir(dir); next == dir {
			return nil
		}
	}
}

// CanWrite says whether files can be made in the directory dir, by making
// one (a hidden temporary file) and removing it.
func CanWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".gpupath-probe-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// CheckOutDir says, before any work is done, whether path can be an output
// directory that a command creates (or fills when it is an existing empty
// directory, which measure, report and import all accept): absent, or an
// empty directory. A file, a symbolic link (dangling or not: the link is
// not followed, nor replaced) or a directory holding anything is refused.
// The error is the reason, without the path; commands give it as bad input.
func CheckOutDir(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return writableAncestor(path)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("cannot be made: a directory above it is a file")
	case err != nil:
		return errors.Unwrap(err)
	case fi.Mode()&os.ModeSymlink != 0:
		return errors.New("it is a symbolic link, not a directory (give a new or empty directory)")
	case !fi.IsDir():
		return errors.New("it is a file, not a directory (give a new or empty directory)")
	}
	f, err := os.Open(path)
	if err != nil {
		return errors.Unwrap(err)
	}
	defer f.Close()
	names, err := f.Readdirnames(2)
	if len(names) > 0 {
		more := ""
		if len(names) > 1 {
			more = " and more"
		}
		return fmt.Errorf("it is a directory that is not empty: it holds %q%s (give a new or empty directory)", names[0], more)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return writableAncestor(path) // an empty one is replaced
}
