package importers

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/importers/nccllog"
	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// File is one imported file: what each format read from it. Outputs[0] is
// the file's own tool; an NCCL log read from the same lines follows it.
type File struct {
	// Name is the file as given; Base its name without the directory.
	Name    string
	Base    string
	Outputs []*obs.Output
}

// Records counts the records of the file's outputs.
func (f *File) Records() int {
	n := 0
	for _, o := range f.Outputs {
		n += len(o.Records)
	}
	return n
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
// from the content). The error is about the file as a whole (no format
// recognizes it, the named format cannot read it); lines that could not be
// read are in the outputs' Problems (see Problems).
func ParseFile(name string, b []byte, tool string) (*File, error) {
	f := &File{Name: name, Base: filepath.Base(name)}
	var fm Format
	if tool != "" {
		var err error
		if fm, err = Lookup(tool); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if fm, ok = Detect(b); !ok {
			return nil, fmt.Errorf("%s: %w (tools: %s); name its tool with --tool", name, ErrUnknownFormat, strings.Join(Names(), ", "))
		}
	}
	o, err := fm.Parse(f.Base, b)
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
	var files []*File
	for _, p := range paths {
		b, err := safeio.ReadFile(ctx, p, MaxFileBytes)
		if err != nil {
			return nil, err
		}
		f, err := ParseFile(p, b, tool)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if lines := Problems(files); len(lines) > 0 {
		return files, &Error{Lines: lines}
	}
	return files, nil
}
