package doctor

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"

	"github.com/gpupath/gpupath/pkg/model"
)

// inflateFS serves every regular file of a tree as its content repeated to
// size bytes (a kernel release, a command line, cpuinfo: each one that
// big), generated as it is read, and counts the bytes it served.
type inflateFS struct {
	fs.FS
	size   int64
	served *atomic.Int64
}

func (f inflateFS) Open(name string) (fs.File, error) {
	file, err := f.FS.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := file.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return file, err
	}
	b, err := io.ReadAll(file)
	file.Close()
	if err != nil {
		return nil, err
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return &inflated{info: st, unit: b, left: f.size, served: f.served}, nil
}

func (f inflateFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.FS, name) }

type inflated struct {
	info   fs.FileInfo
	unit   []byte
	off    int
	left   int64
	served *atomic.Int64
}

func (f *inflated) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *inflated) Close() error               { return nil }
func (f *inflated) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && f.left > 0 {
		c := copy(p[n:min(len(p), n+int(f.left))], f.unit[f.off:])
		f.off = (f.off + c) % len(f.unit)
		n += c
		f.left -= int64(c)
	}
	f.served.Add(int64(n))
	return n, nil
}

// Every file of a real host's tree made 15 MiB of its own content: doctor
// reads no more than its total budget (plus one read's overshoot), and no
// text of a finding — a kernel release, a command line it quotes — is
// longer than MaxTextBytes, so the output stays small (before: 842 MB of
// memory and 91 MB of output, one fact 15 MiB long).
func TestReadBudgetAndClippedTexts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: reads 64 MiB")
	}
	dir := unpackTree(t, "h200-vm")
	trees := Open(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), filepath.Join(dir, "boot"))
	defer trees.Close()
	served := new(atomic.Int64)
	inflate := func(f fs.FS) fs.FS { return inflateFS{f, 15 << 20, served} }
	done := make(chan *Report, 1)
	go func() {
		done <- Run(Options{Sys: inflate(trees.Sys), Proc: inflate(trees.Proc), Boot: inflate(trees.Boot),
			Roots: Roots{Sys: "sys", Proc: "proc", Boot: "boot"}, Pricer: NewPricer(model.Default(), "preset default")})
	}()
	var r *Report
	select {
	case r = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("doctor did not finish")
	}
	if got := served.Load(); got > MaxTotalBytes+MaxFileBytes {
		t.Errorf("read %d bytes, budget %d", got, MaxTotalBytes)
	}
	spent := false
	for _, f := range r.Findings {
		texts := []string{f.Subject, f.Title, f.Why, f.Fix}
		for _, fa := range f.Facts {
			texts = append(texts, fa.Source, fa.Value, fa.Error)
			spent = spent || strings.Contains(fa.Error, "read budget")
		}
		for _, s := range texts {
			if len(s) > MaxTextBytes+64 {
				t.Errorf("%s: a text of %d bytes: %.80q…", f.ID, len(s), s)
			}
		}
	}
	if !spent {
		t.Error("no fact says the read budget was spent")
	}
	var out bytes.Buffer
	if err := WriteText(&out, r); err != nil {
		t.Fatal(err)
	}
	if out.Len() > 1<<20 {
		t.Errorf("text output %d bytes", out.Len())
	}
}

func TestClip(t *testing.T) {
	s := strings.Repeat("é", MaxTextBytes)
	c := clip(s)
	if !strings.HasSuffix(c, "bytes in all)") || len(c) > MaxTextBytes+40 || !strings.HasPrefix(c, "éé") {
		t.Errorf("clip: %d bytes, %q", len(c), c[len(c)-40:])
	}
	if !strings.Contains(c[:MaxTextBytes], "é") || strings.ContainsRune(c, '\uFFFD') {
		t.Error("cut inside a character")
	}
	if clip("short") != "short" {
		t.Error("a short text changed")
	}
}

// Every text of a report is one line without control characters, whatever
// the trees hold: an OS release with a line break and an escape sequence
// cannot forge a line of doctor's output or reach a terminal through its
// JSON.
func TestReportTextsOneLine(t *testing.T) {
	evil := "6.18\n\x1b[31mforged line\x07"
	proc := fstest.MapFS{"sys/kernel/osrelease": {Data: []byte(evil)}, "cmdline": {Data: []byte("BOOT_IMAGE=/vmlinuz\nforged")}}
	r := Run(Options{Sys: fstest.MapFS{}, Proc: proc, Roots: Roots{Sys: "sys\x1b", Proc: "proc\n"}, Pricer: NewPricer(model.Default(), "preset default")})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if bad, err := termtext.ControlStrings(b); err != nil || len(bad) > 0 {
		t.Errorf("raw control characters: %v %q", err, bad)
	}
	n := strings.Count(string(b), `":"`)
	if n < 10 {
		t.Errorf("only %d texts in the report", n)
	}
}
