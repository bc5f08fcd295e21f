package doctor

import (
	"fmt"
	"io/fs"
	"sync/atomic"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
)

// MaxTotalBytes bounds everything one doctor run reads from its trees, all
// files together: a real host's facts are some hundreds of KiB (sysfs
// attributes of a page or less, cpuinfo, a kernel config), so a tree that
// holds more is not a host's; what is read past the budget is "could not
// read", and memory stays bounded whatever the trees hold.
const MaxTotalBytes = 64 << 20

// errBudget is the error of a read past MaxTotalBytes.
var errBudget = fmt.Errorf("doctor's read budget of %s for all files is spent", safeio.FormatLimit(MaxTotalBytes))

// budgetFS counts the bytes read through it against a budget shared by
// the trees of one run. It offers ReadFile only where the tree does (one
// that records what is read: doctor --save-tree), and charges what that
// returned; otherwise every read goes through Open and the counting file.
type budgetFS struct {
	fsys fs.FS
	left *atomic.Int64
}

// budgetReadFS is a budgetFS over a tree with a ReadFile method.
type budgetReadFS struct{ budgetFS }

func budgeted(fsys fs.FS, left *atomic.Int64) fs.FS {
	if fsys == nil {
		return nil
	}
	if _, ok := fsys.(fs.ReadFileFS); ok {
		return budgetReadFS{budgetFS{fsys, left}}
	}
	return budgetFS{fsys, left}
}

func (b budgetReadFS) ReadFile(name string) ([]byte, error) {
	if b.left.Load() <= 0 {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errBudget}
	}
	data, err := b.fsys.(fs.ReadFileFS).ReadFile(name)
	b.left.Add(-int64(len(data)))
	return data, err
}

func (b budgetFS) Open(name string) (fs.File, error) {
	f, err := b.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := f.(fs.ReadDirFile); ok {
		return budgetDir{budgetFile{d, b.left}, d}, nil
	}
	return budgetFile{f, b.left}, nil
}

func (b budgetFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(b.fsys, name) }

func (b budgetFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(b.fsys, name) }

func (b budgetFS) ReadLink(name string) (string, error) { return fs.ReadLink(b.fsys, name) }

func (b budgetFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(b.fsys, name) }

type budgetFile struct {
	fs.File
	left *atomic.Int64
}

func (f budgetFile) Read(p []byte) (int, error) {
	if f.left.Load() <= 0 {
		return 0, errBudget
	}
	n, err := f.File.Read(p)
	f.left.Add(-int64(n))
	return n, err
}

type budgetDir struct {
	budgetFile
	d fs.ReadDirFile
}

func (d budgetDir) ReadDir(n int) ([]fs.DirEntry, error) { return d.d.ReadDir(n) }

// MaxTextBytes bounds each text of a finding (its title, subject, why, fix,
// and each fact's source, value and error): the texts doctor writes are a
// few hundred bytes, and one made from a file's content (a kernel release,
// a command line) must not carry the whole file into the output.
const MaxTextBytes = 512

// clip makes s one line without control characters (termtext.Name: a
// kernel release, an OS name or a GPU name read from a file may hold a
// line break) and cuts it to MaxTextBytes at a character boundary, saying
// how long it was.
func clip(s string) string { return termtext.Cut(termtext.Name(s), MaxTextBytes) }

// bound clips every text of the report (clip): where the facts came from,
// the scenario, the host keys and every finding.
func (r *Report) bound() {
	r.GPUSource, r.Scenario = clip(r.GPUSource), clip(r.Scenario)
	r.Roots.Sys, r.Roots.Proc, r.Roots.Boot = clip(r.Roots.Sys), clip(r.Roots.Proc), clip(r.Roots.Boot)
	for i := range r.Host {
		r.Host[i] = clip(r.Host[i])
	}
	for i := range r.Findings {
		r.Findings[i].bound()
	}
}

// bound clips every text of the finding (clip): the one place a finding's
// size is bounded, whatever check made it.
func (f *Finding) bound() {
	f.Subject, f.Title, f.Why, f.Fix = clip(f.Subject), clip(f.Title), clip(f.Why), clip(f.Fix)
	for i := range f.Facts {
		fa := &f.Facts[i]
		fa.Source, fa.Value, fa.Error = clip(fa.Source), clip(fa.Value), clip(fa.Error)
	}
}
