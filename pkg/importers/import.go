package importers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/importers/inventory"
	"github.com/gpupath/gpupath/pkg/importers/nccllog"
	"github.com/gpupath/gpupath/pkg/importers/nvlink"
	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/record"
)

// File is one imported file: what each format read from it. Outputs[0] is
// the file's own tool; an NCCL log read from the same lines follows it.
//
// A file read with ReadFilesStream whose format streams keeps no records:
// Outputs[0].Streamed counts them, and EachRecord reads them again from
// the file's content, one at a time.
type File struct {
	// Name is the file as given; Base its name without the directory.
	Name    string
	Base    string
	Outputs []*obs.Output

	// SHA256 is the hex SHA-256 of the file as read (ReadFiles): the
	// same output in two runs is known by it.
	SHA256 string

	data   []byte
	format Format
	fix    func(*obs.Record)
}

// Records counts the records of the file's outputs.
func (f *File) Records() int {
	n := 0
	for _, o := range f.Outputs {
		n += o.Count()
	}
	return n
}

// stopParse is what a sink panics with to end a parse early (an error of
// the writer, an interrupt); stoppable recovers it.
type stopParse struct{}

// stoppable runs f; a stopParse panic inside it ends it with a nil error
// (the sink that stopped it kept its own).
func stoppable(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopParse); !ok {
				panic(p)
			}
			err = nil
		}
	}()
	return f()
}

// EachRecord calls fn with each record of each output, in order; a
// streamed output is read again. It stops at fn's first error.
func (f *File) EachRecord(fn func(o *obs.Output, r *obs.Record) error) error {
	for k, o := range f.Outputs {
		if k > 0 || o.Streamed == 0 {
			for i := range o.Records {
				if err := fn(o, &o.Records[i]); err != nil {
					return err
				}
			}
			continue
		}
		var ferr error
		n := 0
		err := stoppable(func() error {
			_, _, err := f.format.Stream(f.Base, f.data, func(r obs.Record) {
				if f.fix != nil {
					f.fix(&r)
				}
				if ferr = obs.ValidateRecord(&r); ferr != nil {
					ferr = fmt.Errorf("%s: %s: %w", f.Name, f.format.Name, ferr)
					panic(stopParse{})
				}
				n++
				if ferr = fn(o, &r); ferr != nil {
					panic(stopParse{}) // the rest of the file is not read
				}
			})
			return err
		})
		switch {
		case ferr != nil:
			return ferr
		case err != nil:
			return fmt.Errorf("%s: %w", f.Name, err)
		case n != o.Streamed:
			return fmt.Errorf("%s: read %d records the second time, %d the first", f.Name, n, o.Streamed)
		}
	}
	return nil
}

// LineError is a line of a file that could not be read.
type LineError struct {
	File   string
	Line   int
	Reason string
	Text   string
}

func (e LineError) Error() string {
	s := fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	if e.Text != "" {
		s += ": " + obs.Quote(e.Text, 60)
	}
	return s
}

// Error lists the lines an import could not read. The records of the
// other lines were kept.
type Error struct {
	Lines []LineError
}

func (e *Error) Error() string {
	if len(e.Lines) == 1 {
		return "1 line could not be read: " + e.Lines[0].Error()
	}
	return fmt.Sprintf("%d lines could not be read; the first: %s", len(e.Lines), e.Lines[0].Error())
}

// ErrUnknownFormat is wrapped by the error for a file that no format
// recognizes.
var ErrUnknownFormat = errors.New("not the output of a tool gpupath reads")

// ParseFile reads one file's content. tool names the format ("" detects it
// from the content). The error is about the file as a whole (binary
// content, no format recognizes it, the named format cannot read it, more
// records than a run holds); lines that could not be read are in the
// outputs' Problems (see Problems). The outputs share b's memory: b must
// not be changed afterwards.
func ParseFile(name string, b []byte, tool string) (*File, error) {
	return ParseFileContext(context.Background(), name, b, tool)
}

// ParseFileStream is ParseFileContext that keeps no records of a format
// that streams (see File): the file's memory does not grow with its rows.
func ParseFileStream(ctx context.Context, name string, b []byte, tool string) (*File, error) {
	return parseFile(ctx, name, b, tool, true)
}

// MaxLineBytes bounds one line of a file to import (the run reader's line
// limit): a longer line is skipped and listed as FILE:LINE, never handed
// to a parser.
const MaxLineBytes = record.MaxLineBytes

// binaryHead is how much of a file the binary check reads.
const binaryHead = 64 << 10

// ErrBinary is wrapped by the error for a file that is not text.
var ErrBinary = errors.New("binary content, not a tool's text output")

// CheckText refuses binary content: a NUL byte, or more than one byte in
// 16 not part of valid UTF-8, in head (the first 64 KiB of a file).
func CheckText(head []byte) error {
	if len(head) > binaryHead {
		head = head[:binaryHead]
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Errorf("%w (a NUL byte at offset %d)", ErrBinary, i)
	}
	bad := 0
	for i := 0; i < len(head); {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n == 1 && len(head)-i >= utf8.UTFMax {
			bad++ // a rune cut at the end of head is not counted
		}
		i += n
	}
	if bad*16 > len(head) {
		return fmt.Errorf("%w (%d of its first %d bytes are not UTF-8)", ErrBinary, bad, len(head))
	}
	return nil
}

// cutLongLines removes, in place, the content of every line over
// MaxLineBytes (its newline stays, so the other lines keep their numbers)
// and lists them. It checks ctx every few MiB.
func cutLongLines(ctx context.Context, b []byte) ([]byte, []obs.Problem, error) {
	var probs []obs.Problem
	w, line, since := 0, 1, 0
	for r := 0; r < len(b); line++ {
		end := bytes.IndexByte(b[r:], '\n')
		next := len(b)
		if end >= 0 {
			end += r
			next = end + 1
		} else {
			end = len(b)
		}
		if n := end - r; n > MaxLineBytes {
			probs = append(probs, obs.Problem{Line: line, Reason: fmt.Sprintf("a line of %d bytes, over the limit of %s: skipped", n, safeio.FormatLimit(MaxLineBytes))})
			if next > end {
				b[w] = '\n'
				w++
			}
		} else {
			w += copy(b[w:], b[r:next])
		}
		if since += next - r; since >= 4<<20 {
			since = 0
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		r = next
	}
	return b[:w], probs, nil
}

// detectHead is how much of a file detection reads first; a file that no
// format recognizes there is tried on its first detectMax bytes (the
// outputs' headers come first: a file whose first 16 MiB no format knows
// is not read to its end to say so; --tool names its format).
const (
	detectHead = 1 << 20
	detectMax  = 16 << 20
)

// headOf is b cut to at most n bytes, at a line end.
func headOf(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[:n]
	if i := bytes.LastIndexByte(b, '\n'); i > 0 {
		b = b[:i+1]
	}
	return b
}

// ParseFileContext is ParseFile that returns when ctx is done (a parse it
// leaves runs on to the end of b in the background; nothing is kept of
// it). b is changed: lines over MaxLineBytes are emptied.
func ParseFileContext(ctx context.Context, name string, b []byte, tool string) (*File, error) {
	return parseFile(ctx, name, b, tool, false)
}

func parseFile(ctx context.Context, name string, b []byte, tool string, stream bool) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, bom := byteOrder(b)
	if err := CheckText(b); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b, ends := carriageReturns(b)
	b, long, err := cutLongLines(ctx, b)
	if err != nil {
		return nil, err
	}
	b, removed, prefixHosts := stripPrefixes(b)
	type result struct {
		f   *File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := parse(ctx, name, b, tool, stream)
		done <- result{f, err}
	}()
	var res result
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res = <-done:
	}
	if res.err != nil {
		return nil, res.err
	}
	if o := res.f.Outputs[0]; res.f.Records() == 0 && measures(o.Tool) && len(o.Failures)+len(o.Problems)+len(o.Notes) == 0 {
		// The format was recognized (its header is there) but no result
		// row followed and the parser said nothing of why: never "ok".
		o.Problems = append(o.Problems, obs.Problem{Line: bytes.Count(b, []byte("\n")) + 1, Reason: fmt.Sprintf("no result in the file: %s's header is there, but no row of results was found after it", o.Tool)})
	}
	if len(removed) > 0 {
		o := res.f.Outputs[0]
		o.Notes = append([]string{prefixNote(removed)}, o.Notes...)
	}
	if o := res.f.Outputs[0]; len(prefixHosts) > 0 && len(o.Hardware.Hosts) == 0 {
		// The output names no host; its lines' prefixes do (pdsh's
		// host, kubectl's pod): that is the host the tool ran on.
		for _, h := range prefixHosts {
			o.Hardware.AddHost(h)
		}
		o.Hardware.Mark("hosts", 1)
		o.Notes = append(o.Notes, "host named by the lines' prefixes: "+strings.Join(prefixHosts, ", "))
	}
	for _, n := range []string{ends, bom} {
		if n != "" {
			o := res.f.Outputs[0]
			o.Notes = append([]string{n}, o.Notes...)
		}
	}
	if len(long) > 0 {
		o := res.f.Outputs[0]
		o.Problems = append(long, o.Problems...)
		sort.SliceStable(o.Problems, func(i, j int) bool { return o.Problems[i].Line < o.Problems[j].Line })
	}
	return res.f, nil
}

// measures tells whether a tool's outputs carry results (records), as
// opposed to the hardware listings and NCCL's logs, which carry none.
func measures(tool string) bool {
	switch tool {
	case inventory.IBStat, inventory.IBVDevinfo, inventory.SMITopo, nvlink.Tool, nccllog.Tool:
		return false
	}
	return true
}

// CheckEvery is how many records pass between two checks of the context
// in the loops over records (a few milliseconds of work).
const CheckEvery = 4096

func parse(ctx context.Context, name string, b []byte, tool string, stream bool) (f *File, err error) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case stopParse:
			f, err = nil, ctx.Err()
		case obs.TooManyRecords:
			f, err = nil, fmt.Errorf("%s:%d: more than %d records: %w of %d per run; nothing imported", name, p.Line, MaxRecords, ErrTooManyRecords, MaxRecords)
		default:
			panic(p)
		}
	}()
	f = &File{Name: name, Base: filepath.Base(name)}
	var fm Format
	if tool != "" {
		var err error
		if fm, err = Lookup(tool); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		for _, n := range []int{detectHead, detectMax} {
			if fm, ok = Detect(headOf(b, n)); ok || n >= len(b) {
				break
			}
		}
		if !ok {
			in := ""
			if len(b) > detectMax {
				in = " in its first " + safeio.FormatLimit(detectMax)
			}
			return nil, fmt.Errorf("%s: %w%s (tools: %s); name its tool with --tool", name, ErrUnknownFormat, in, strings.Join(Names(), ", "))
		}
	}
	var o *obs.Output
	if stream && fm.Stream != nil {
		var verr error
		n := 0
		o, f.fix, err = fm.Stream(f.Base, b, func(r obs.Record) {
			if n++; n%CheckEvery == 0 && ctx.Err() != nil {
				panic(stopParse{}) // interrupted: the parse ends here
			}
			if verr == nil {
				verr = obs.ValidateRecord(&r)
			}
		})
		if err == nil && verr != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, fm.Name, verr) // a parser bug
		}
		f.data, f.format = b, fm
	} else if o, err = fm.Parse(f.Base, b); err == nil {
		o.DropUnphysical()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", name, fm.Name, err) // a parser bug: fuzzing looks for it
	}
	f.Outputs = append(f.Outputs, o)
	if fm.Name != nccllog.Tool && nccllog.Detect(b) {
		if l, err := nccllog.Parse(b); err == nil {
			f.Outputs = append(f.Outputs, l)
		}
	}
	return f, nil
}

// Failures lists what the tools themselves reported as failed in f (the
// run keeps them as the file's status), as lines of f.
func (f *File) Failures() []LineError {
	var out []LineError
	for _, o := range f.Outputs {
		for _, p := range o.Failures {
			msg := p.Reason // the tool's text as it printed it, unquoted
			if p.Text != "" {
				msg += ": " + p.Text
			}
			out = append(out, LineError{File: f.Name, Line: p.Line, Reason: msg})
		}
	}
	return out
}

// Problems lists the lines of the files that could not be read.
func Problems(files []*File) []LineError {
	var out []LineError
	for _, f := range files {
		for _, o := range f.Outputs {
			for _, p := range o.Problems {
				out = append(out, LineError{File: f.Name, Line: p.Line, Reason: p.Reason, Text: p.Text})
			}
		}
	}
	return out
}

// ReadFiles reads and parses files. It stops at the first file that cannot
// be read or recognized (nothing is imported then). Otherwise it returns
// every file, and, when some lines could not be read, an *Error listing
// them with the files: the records of the other lines are in the files.
func ReadFiles(paths []string, tool string) ([]*File, error) {
	return ReadFilesContext(context.Background(), paths, tool)
}

// MaxFileBytes bounds one file to import: the largest outputs of the tools
// read here (an NCCL debug log of a long job with NCCL_DEBUG=INFO) run to
// tens of MiB.
const MaxFileBytes = 256 << 20

// ReadFilesContext is ReadFiles that stops when ctx is done. Files are
// read with safeio: a FIFO, a device or a directory is refused at once, a
// file over MaxFileBytes with an error that names the limit.
func ReadFilesContext(ctx context.Context, paths []string, tool string) ([]*File, error) {
	return readFiles(ctx, paths, tool, false)
}

// ReadFilesStream is ReadFilesContext that keeps no records of the formats
// that stream (see File): what gpupath import uses, so that its memory
// does not grow with the rows of its files. The files' records are
// counted, and more than MaxRecords refused, before anything is written.
func ReadFilesStream(ctx context.Context, paths []string, tool string) ([]*File, error) {
	return readFiles(ctx, paths, tool, true)
}

func readFiles(ctx context.Context, paths []string, tool string, stream bool) ([]*File, error) {
	var files []*File
	total := 0
	if len(paths) > MaxFiles {
		return nil, fmt.Errorf("%d files: one import takes at most %d (import a cluster's outputs in several runs)", len(paths), MaxFiles)
	}
	var seen []os.FileInfo
	for _, p := range paths {
		// The same file twice (under two names too) would import its
		// records twice: refused before anything is read.
		if fi, err := os.Stat(p); err == nil {
			for j, s := range seen {
				if s != nil && os.SameFile(s, fi) {
					return nil, fmt.Errorf("%s: %w: the same file as %s", p, ErrGivenTwice, paths[j])
				}
			}
			seen = append(seen, fi)
		} else {
			seen = append(seen, nil)
		}
	}
	byContent := map[string]string{}
	for _, p := range paths {
		b, err := readText(ctx, p)
		if err != nil {
			return nil, err
		}
		sum := fmt.Sprintf("%x", sha256.Sum256(b)) // before the parse changes b
		f, err := parseFile(ctx, p, b, tool, stream)
		if err != nil {
			return nil, err
		}
		f.SHA256 = sum
		if f.Records() > 0 {
			// A copy of an output under another name would count its
			// records twice (identical listings of identical nodes do
			// not count: they hold none).
			if o, ok := byContent[sum]; ok {
				return nil, fmt.Errorf("%s: %w: the same content as %s, whose records would count twice", p, ErrGivenTwice, o)
			}
			byContent[sum] = p
		}
		if total += f.Records(); total > MaxRecords {
			return nil, fmt.Errorf("%s: %d records with the files before it: %w of %d per run; nothing imported", p, total, ErrTooManyRecords, MaxRecords)
		}
		files = append(files, f)
	}
	if lines := Problems(files); len(lines) > 0 {
		return files, &Error{Lines: lines}
	}
	return files, nil
}

// ErrGivenTwice is returned for a file given twice to one import.
var ErrGivenTwice = errors.New("given twice")

// readText reads a file to import: a file over MaxFileBytes is refused
// before it is read, binary content after its first 64 KiB.
func readText(ctx context.Context, path string) ([]byte, error) {
	return safeio.ReadFileHead(ctx, path, MaxFileBytes, binaryHead, func(head []byte) error {
		head, _ = byteOrder(head) // UTF-16 is text
		return CheckText(head)
	})
}
