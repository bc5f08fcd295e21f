package importers

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpupath/gpupath/internal/termtext"
)

// FileRead is what an import read from one file, for scripts (gpupath
// import --format json): the tool and its version, the hosts the file
// names, how many records it gave, its notes, the lines it could not read
// and the failures the tool itself printed. Texts from the file pass
// termtext.Name.
type FileRead struct {
	File     string   `json:"file"`
	Tool     string   `json:"tool"`
	Version  string   `json:"version,omitempty"`
	Test     string   `json:"test,omitempty"`
	Hosts    []string `json:"hosts,omitempty"`
	Records  int      `json:"records"`
	Path     string   `json:"nccl_path,omitempty"`
	Notes    []string `json:"notes,omitempty"`
	Errors   []string `json:"errors,omitempty"`
	Failures []string `json:"failures,omitempty"`
}

// maxReadListed bounds each list of a FileRead (a damaged file can have a
// problem per line); the last entry then says how many more there are.
const maxReadListed = 100

// Describe is FileRead of each file, in order.
func Describe(files []*File) []FileRead {
	var out []FileRead
	for _, f := range files {
		o := f.Outputs[0]
		fi := FileRead{File: termtext.Name(f.Name), Tool: o.Tool, Version: termtext.Name(o.Version), Test: termtext.Name(o.Test), Records: f.Records()}
		for _, h := range o.Hardware.Hosts {
			fi.Hosts = append(fi.Hosts, termtext.Name(h))
		}
		for _, x := range f.Outputs {
			if x.Path != nil && x.Path.Path != "" && fi.Path == "" {
				fi.Path = x.Path.Path
			}
			fi.Notes = appendListed(fi.Notes, x.Notes...)
			for _, p := range x.Problems {
				fi.Errors = appendListed(fi.Errors, p.String())
			}
			for _, p := range x.Failures {
				fi.Failures = appendListed(fi.Failures, p.String())
			}
		}
		out = append(out, fi)
	}
	return out
}

// appendListed appends texts (escaped) up to maxReadListed entries, the last
// one counting what was left out.
func appendListed(list []string, texts ...string) []string {
	for _, t := range texts {
		switch {
		case len(list) < maxReadListed-1:
			list = append(list, termtext.Name(t))
		case len(list) == maxReadListed-1:
			list = append(list, "and 1 more")
		default:
			var n int
			fmt.Sscanf(list[maxReadListed-1], "and %d more", &n)
			list[maxReadListed-1] = fmt.Sprintf("and %d more", n+1)
		}
	}
	return list
}

// Summary says in one line what was read from the file (gpupath import's
// line per file); the caller escapes it (a file name may hold a line
// break).
func (f *File) Summary() string {
	o := f.Outputs[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", f.Name, o.Tool)
	if o.Version != "" {
		fmt.Fprintf(&b, " %s", o.Version)
	}
	if o.Test != "" && o.Test != o.Tool {
		fmt.Fprintf(&b, " (%s)", o.Test)
	}
	n := o.Count()
	switch {
	case n > 0:
		fmt.Fprintf(&b, ", %d records", n)
	case len(o.Hardware.NICs) > 0 || o.Hardware.GPUNIC != "":
		fmt.Fprintf(&b, ", hardware only: %d NIC(s)", len(o.Hardware.NICs))
		if o.Hardware.GPUNIC != "" {
			fmt.Fprintf(&b, ", GPU–NIC %s", o.Hardware.GPUNIC)
		}
	default:
		b.WriteString(", no records")
	}
	for _, l := range f.Outputs[1:] {
		if l.Path != nil && l.Path.Path != "" {
			fmt.Fprintf(&b, "; NCCL log: the %s path between nodes (line %d)", l.Path.Path, l.Path.Line)
		}
	}
	if o.Path != nil && o.Path.Path != "" {
		fmt.Fprintf(&b, ": the %s path between nodes (line %d)", o.Path.Path, o.Path.Line)
	}
	return b.String()
}

// PrintLines prints lines as gpupath import does, one per line: the first
// 20, then how many more (more names them).
func PrintLines(w io.Writer, lines []LineError, more string) {
	for i, l := range lines {
		if i == 20 {
			fmt.Fprintf(w, "gpupath: import: and %d more %s\n", len(lines)-i, more)
			return
		}
		fmt.Fprintf(w, "gpupath: import: %s\n", termtext.Name(l.Error()))
	}
}
