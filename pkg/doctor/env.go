package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/topo"
)

// Options say what doctor reads and how it prices.
type Options struct {
	// Sys, Proc and Boot are the sysfs, procfs and /boot trees; a nil tree
	// is not read (its facts are "could not read: not given"). Open gives
	// trees that stay inside their directories.
	Sys, Proc, Boot fs.FS
	// Roots names the trees in the report.
	Roots Roots
	// GPU gives the driver's facts; nil: none.
	GPU GPUSource
	// Pricer prices the findings; nil: no prices.
	Pricer *Pricer
}

// Trees are directories opened as file systems that do not leave them.
type Trees struct {
	Sys, Proc, Boot fs.FS
	Roots           Roots
	roots           []*os.Root
}

// Open opens the sysfs, procfs and boot directories with os.OpenRoot: a
// symbolic link inside them is followed only while it stays inside (sysfs's
// links are all relative and stay in /sys), and an absolute link is never
// followed. A directory that cannot be opened is left nil, and every fact
// from it reads "could not read"; boot "" is not read at all.
func Open(sys, proc, boot string) *Trees {
	t := &Trees{Roots: Roots{Sys: sys, Proc: proc, Boot: boot}}
	open := func(dir string) fs.FS {
		if dir == "" {
			return nil
		}
		r, err := os.OpenRoot(dir)
		if err != nil {
			return errFS{err}
		}
		t.roots = append(t.roots, r)
		return r.FS()
	}
	t.Sys, t.Proc, t.Boot = open(sys), open(proc), open(boot)
	return t
}

// Close closes the directories.
func (t *Trees) Close() error {
	var errs []error
	for _, r := range t.roots {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// errFS is a tree that could not be opened: every call fails with err.
type errFS struct{ err error }

func (e errFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: e.err}
}

func (e errFS) ReadLink(name string) (string, error) {
	return "", &fs.PathError{Op: "readlink", Path: name, Err: e.err}
}

func (e errFS) Lstat(name string) (fs.FileInfo, error) {
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: e.err}
}

// tree names one of the trees.
type tree int

const (
	sysTree tree = iota
	procTree
	bootTree
)

// prefix is where the tree sits on a live system: facts are named by it.
func (t tree) prefix() string { return [...]string{"/sys", "/proc", "/boot"}[t] }

// Env is what a check reads through: the trees, the GPU facts and what
// several checks share (the PCI system, the kernel config), read once.
type Env struct {
	opts Options

	sysOnce sync.Once
	sys     *topo.System
	sysErr  error

	gpuOnce sync.Once
	gpus    *record.GPUInventory
	gpuErr  error

	memo sync.Map // string → any: shared facts computed by one check and read by others
}

func newEnv(o Options) *Env {
	left := new(atomic.Int64)
	left.Store(MaxTotalBytes)
	o.Sys, o.Proc, o.Boot = budgeted(o.Sys, left), budgeted(o.Proc, left), budgeted(o.Boot, left)
	return &Env{opts: o}
}

func (e *Env) fsys(t tree) fs.FS {
	switch t {
	case sysTree:
		return e.opts.Sys
	case procTree:
		return e.opts.Proc
	}
	return e.opts.Boot
}

// src names a file of a tree as a fact source: "/sys/module/gdrdrv".
func src(t tree, name string) string { return path.Join(t.prefix(), name) }

var errNotGiven = errors.New("tree not given")

// read reads a file of a tree (readBounded).
func (e *Env) read(t tree, name string) ([]byte, error) {
	f := e.fsys(t)
	if f == nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotGiven}
	}
	return readBounded(f, name)
}

// MaxFileBytes bounds one file doctor reads: sysfs attributes are a page, the
// largest /proc file it reads (cpuinfo) is some hundreds of KiB on a
// 200-core host, a compressed kernel config about 300 KiB.
const MaxFileBytes = 16 << 20

// readBounded reads a regular file of at most MaxFileBytes bytes; a FIFO or a
// device in a tree given to doctor is refused, not waited on.
func readBounded(f fs.FS, name string) ([]byte, error) {
	return safeio.ReadFSFile(f, name, MaxFileBytes)
}

// text reads a file as trimmed text and returns the fact that says so.
func (e *Env) text(t tree, name string) (string, Fact) {
	b, err := e.read(t, name)
	if err != nil {
		return "", Fact{Source: src(t, name), Error: whyNot(err)}
	}
	s := strings.TrimSpace(string(b))
	return s, Fact{Source: src(t, name), Value: oneLine(s)}
}

// exists reports whether name exists in the tree (following links that stay
// inside it), with the fact.
func (e *Env) exists(t tree, name string) (bool, Fact) {
	f := e.fsys(t)
	var err error
	if f == nil {
		err = errNotGiven
	} else {
		var fi fs.FileInfo
		if fi, err = fs.Stat(f, name); err == nil {
			v := "present"
			if fi.IsDir() {
				v = "present (directory)"
			}
			return true, Fact{Source: src(t, name), Value: v}
		}
	}
	return false, Fact{Source: src(t, name), Error: whyNot(err)}
}

func (e *Env) readDir(t tree, name string) ([]fs.DirEntry, error) {
	f := e.fsys(t)
	if f == nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotGiven}
	}
	return fs.ReadDir(f, name)
}

func (e *Env) readLink(t tree, name string) (string, error) {
	f := e.fsys(t)
	if f == nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: errNotGiven}
	}
	rl, ok := f.(fs.ReadLinkFS)
	if !ok {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: errors.ErrUnsupported}
	}
	return rl.ReadLink(name)
}

// whyNot says why a file could not be read, as a fact's Error.
func whyNot(err error) string {
	var why string
	var pe *fs.PathError
	inner := err
	if errors.As(err, &pe) {
		inner = pe.Err
	}
	switch {
	case errors.Is(err, errNotGiven):
		why = "tree not given"
	case errors.Is(err, fs.ErrNotExist):
		why = "not found"
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EPERM):
		why = "permission denied (needs root)"
	case errors.Is(err, syscall.ELOOP):
		why = "symbolic link loop"
	case errors.Is(err, syscall.EISDIR):
		why = "is a directory, not a file"
	case errors.Is(err, syscall.EINVAL):
		why = "invalid argument (the kernel refuses to read it)"
	case strings.Contains(inner.Error(), "escapes"):
		why = "a symbolic link points outside the root (not followed)"
	case strings.Contains(inner.Error(), "absolute"):
		why = "an absolute symbolic link (not followed)"
	default:
		why = inner.Error()
	}
	return "could not read: " + why
}

// oneLine shortens a value for a fact: its first line, at most 160 bytes.
func oneLine(s string) string {
	more := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = s[:i], true
	}
	if len(s) > 160 {
		s, more = s[:160], true
	}
	s = strings.ToValidUTF8(s, "?")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if more {
		s += " …"
	}
	return s
}

// system returns the PCI, RDMA and network system from the sysfs tree.
func (e *Env) system() (*topo.System, error) {
	e.sysOnce.Do(func() {
		if e.opts.Sys == nil {
			e.sysErr = fmt.Errorf("sysfs: %w", errNotGiven)
			return
		}
		e.sys, e.sysErr = topo.ReadFS(e.opts.Sys)
	})
	return e.sys, e.sysErr
}

// gpuInventory returns the GPU inventory, read once.
func (e *Env) gpuInventory() (*record.GPUInventory, error) {
	e.gpuOnce.Do(func() {
		if e.opts.GPU == nil {
			e.gpuErr = errors.New("no GPU source")
			return
		}
		e.gpus, e.gpuErr = e.opts.GPU.GPUInventory()
	})
	return e.gpus, e.gpuErr
}

// once memoises a value shared by checks under key.
func once[T any](e *Env, key string, f func() T) T {
	if v, ok := e.memo.Load(key); ok {
		return v.(T)
	}
	v, _ := e.memo.LoadOrStore(key, f())
	return v.(T)
}
