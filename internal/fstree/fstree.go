// Package fstree reads and writes text archives of small file trees: the
// fixture format of this repository's sysfs and procfs trees (pkg/topo and
// pkg/doctor testdata), and what `gpupath doctor --save-tree` writes.
//
// An archive has one entry per line:
//
//	# comment
//	d <path>                  a directory
//	f <path> <quoted content> a regular file (content in Go quoted form)
//	z <path> <size> <quoted>  a regular file of size bytes: the quoted
//	                          start, then NUL bytes (config space files)
//	l <path> <target>         a symbolic link
//
// Paths are relative to the tree's root and use '/'. Keeping trees in one
// text file keeps the repository free of the ':' in PCI addresses (not
// allowed in Go module file paths) and of symbolic links.
//
// The package does not interpret the files, and Unpack refuses paths that
// would land outside the target directory.
package fstree

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Entry is one line of an archive.
type Entry struct {
	// Kind is 'd' (directory), 'f' (file) or 'l' (symbolic link).
	Kind byte
	Path string
	// Data is the file's content (f) or the link's target (l).
	Data string
}

// Line formats e as an archive line.
func (e Entry) Line() string {
	switch e.Kind {
	case 'f':
		if t := strings.TrimRight(e.Data, "\x00"); len(e.Data)-len(t) >= 64 {
			return "z " + e.Path + " " + strconv.Itoa(len(e.Data)) + " " + strconv.Quote(t)
		}
		return "f " + e.Path + " " + strconv.Quote(e.Data)
	case 'l':
		return "l " + e.Path + " " + e.Data
	}
	return "d " + e.Path
}

// Parse reads an archive. An error names the line.
func Parse(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var out []Entry
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		p, arg, _ := strings.Cut(rest, " ")
		if !fs.ValidPath(p) || p == "." {
			return nil, fmt.Errorf("fstree: line %d: bad path %q", n, p)
		}
		e := Entry{Path: p}
		switch kind {
		case "d":
			e.Kind = 'd'
		case "f":
			s, err := strconv.Unquote(arg)
			if err != nil {
				return nil, fmt.Errorf("fstree: line %d: %s: content is not a quoted string", n, p)
			}
			e.Kind, e.Data = 'f', s
		case "z":
			num, q, _ := strings.Cut(arg, " ")
			size, err1 := strconv.Atoi(num)
			s, err2 := strconv.Unquote(q)
			if err1 != nil || err2 != nil || size < len(s) || size > 1<<24 {
				return nil, fmt.Errorf("fstree: line %d: %s: want a size and a quoted string", n, p)
			}
			e.Kind, e.Data = 'f', s+strings.Repeat("\x00", size-len(s))
		case "l":
			if arg == "" {
				return nil, fmt.Errorf("fstree: line %d: %s: link without target", n, p)
			}
			e.Kind, e.Data = 'l', arg
		default:
			return nil, fmt.Errorf("fstree: line %d: unknown entry kind %q", n, kind)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Unpack writes the entries under dir (which it creates). Links are made as
// they are, wherever they point: the archive is trusted to describe the tree
// it wants, loops and escapes included; only the entries' own paths must
// stay inside dir.
func Unpack(entries []Entry, dir string) error {
	for _, e := range entries {
		if !fs.ValidPath(e.Path) {
			return fmt.Errorf("fstree: bad path %q", e.Path)
		}
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		var err error
		switch e.Kind {
		case 'd':
			err = os.MkdirAll(p, 0o755)
		case 'f':
			err = os.WriteFile(p, []byte(e.Data), 0o644)
		case 'l':
			err = os.Symlink(e.Data, p)
		default:
			err = fmt.Errorf("fstree: %s: unknown kind %q", e.Path, e.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// UnpackFile parses the archive file and unpacks it under dir.
func UnpackFile(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	entries, err := Parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	return Unpack(entries, dir)
}

// Walk lists the tree at dir as entries, sorted by path. Links are not
// followed.
func Walk(dir string) ([]Entry, error) {
	var out []Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out = append(out, Entry{Kind: 'l', Path: rel, Data: t})
		case d.IsDir():
			out = append(out, Entry{Kind: 'd', Path: rel})
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, Entry{Kind: 'f', Path: rel, Data: string(b)})
		}
		return nil
	})
	Sort(out)
	return out, err
}

// Sort orders entries by kind, then path, as archives list them (directories
// first, so that a reader sees the skeleton before the files).
func Sort(es []Entry) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].Kind != es[j].Kind {
			return es[i].Kind < es[j].Kind
		}
		return es[i].Path < es[j].Path
	})
}

// Write writes an archive: the header lines as comments, then the entries.
func Write(w io.Writer, header []string, entries []Entry) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	for _, e := range entries {
		fmt.Fprintln(bw, e.Line())
	}
	return bw.Flush()
}

// Prefix returns the entries with prefix ("sys") put before each path.
func Prefix(prefix string, es []Entry) []Entry {
	out := make([]Entry, len(es))
	for i, e := range es {
		e.Path = path.Join(prefix, e.Path)
		out[i] = e
	}
	return out
}
