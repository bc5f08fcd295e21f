package fstree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Recorder is an fs.FS that passes every call to FS and remembers what it
// saw: the files read (with their content), the directories listed, the
// links followed. Entries returns it as an archive whose tree, unpacked,
// answers the same calls the same way (errors aside: a file that failed to
// read is listed in Failures, not in the tree). FS must implement
// fs.ReadLinkFS for links to be recorded; paths that leave the tree are
// not recorded.
type Recorder struct {
	FS fs.FS
	// Limit, when positive, bounds what ReadFile reads of one file (a
	// sysfs attribute states 4096 bytes whatever it holds, so the file's
	// size does not bound it): a file past it is an error, not recorded.
	Limit int64

	mu       sync.Mutex
	entries  map[string]Entry
	failures []string
}

func (r *Recorder) add(e Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entries == nil {
		r.entries = map[string]Entry{}
	}
	if old, ok := r.entries[e.Path]; ok && old.Kind == 'f' && e.Kind == 'f' && e.Data == "" {
		return // a listing does not overwrite content already read
	}
	r.entries[e.Path] = e
}

func (r *Recorder) fail(name string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		return // absence copies itself
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, name+": "+err.Error())
}

// resolve returns name with every symbolic link among its parents replaced
// by its target, recording the links; ok is false when the path leaves the
// tree or cannot be resolved.
func (r *Recorder) resolve(name string) (string, bool) {
	rl, canLink := r.FS.(fs.ReadLinkFS)
	if !canLink || name == "." {
		return name, true
	}
	parts := strings.Split(name, "/")
	cur := "."
	for hops := 0; len(parts) > 0; {
		next := path.Join(cur, parts[0])
		parts = parts[1:]
		if len(parts) == 0 {
			return next, true // the last element is the caller's business
		}
		fi, err := rl.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		t, err := rl.ReadLink(next)
		if err != nil || strings.HasPrefix(t, "/") {
			return "", false
		}
		r.add(Entry{Kind: 'l', Path: next, Data: t})
		dst := path.Join(path.Dir(next), t)
		if dst == ".." || strings.HasPrefix(dst, "../") {
			return "", false
		}
		if hops++; hops > 40 {
			return "", false
		}
		// Resolve the target again from the top (it may hold links itself).
		rest := strings.Split(dst, "/")
		if dst == "." {
			rest = nil
		}
		parts = append(rest, parts...)
		cur = "."
	}
	return cur, true
}

// Open opens name in FS (recorded only through the other methods).
func (r *Recorder) Open(name string) (fs.File, error) { return r.FS.Open(name) }

// ReadFile reads name and records its content.
func (r *Recorder) ReadFile(name string) ([]byte, error) {
	b, err := r.read(name)
	if err != nil {
		r.fail(name, err)
		return b, err
	}
	if p, ok := r.resolve(name); ok {
		p = r.finalLink(p)
		if p != "" {
			r.add(Entry{Kind: 'f', Path: p, Data: string(b)})
		}
	}
	return b, nil
}

// finalLink follows links at the end of p (recording them) and returns the
// path of the file itself, or "" when it leaves the tree.
func (r *Recorder) finalLink(p string) string {
	rl, ok := r.FS.(fs.ReadLinkFS)
	if !ok {
		return p
	}
	for hops := 0; hops < 40; hops++ {
		fi, err := rl.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p
		}
		t, err := rl.ReadLink(p)
		if err != nil || strings.HasPrefix(t, "/") {
			return ""
		}
		r.add(Entry{Kind: 'l', Path: p, Data: t})
		dst := path.Join(path.Dir(p), t)
		if dst == ".." || strings.HasPrefix(dst, "../") {
			return ""
		}
		q, ok := r.resolve(dst)
		if !ok {
			return ""
		}
		p = q
	}
	return ""
}

// ReadDir lists name and records the directory, its subdirectories, its
// links (with their targets) and its files (empty unless read).
func (r *Recorder) ReadDir(name string) ([]fs.DirEntry, error) {
	es, err := fs.ReadDir(r.FS, name)
	if err != nil {
		r.fail(name, err)
		return es, err
	}
	p, ok := r.resolve(name)
	if ok {
		p = r.finalLink(p)
	}
	if !ok || p == "" {
		return es, nil
	}
	if p != "." {
		r.add(Entry{Kind: 'd', Path: p})
	}
	rl, canLink := r.FS.(fs.ReadLinkFS)
	for _, e := range es {
		child := path.Join(p, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			if canLink {
				if t, err := rl.ReadLink(child); err == nil {
					r.add(Entry{Kind: 'l', Path: child, Data: t})
				}
			}
		case e.IsDir():
			r.add(Entry{Kind: 'd', Path: child})
		default:
			r.add(Entry{Kind: 'f', Path: child})
		}
	}
	return es, nil
}

// ReadLink reads a link and records it.
func (r *Recorder) ReadLink(name string) (string, error) {
	rl, ok := r.FS.(fs.ReadLinkFS)
	if !ok {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: errors.ErrUnsupported}
	}
	t, err := rl.ReadLink(name)
	if err != nil {
		r.fail(name, err)
		return t, err
	}
	if p, ok := r.resolve(name); ok {
		r.add(Entry{Kind: 'l', Path: p, Data: t})
	}
	return t, nil
}

// Lstat passes through (the link itself is recorded by ReadLink).
func (r *Recorder) Lstat(name string) (fs.FileInfo, error) {
	rl, ok := r.FS.(fs.ReadLinkFS)
	if !ok {
		return fs.Stat(r.FS, name)
	}
	return rl.Lstat(name)
}

// Stat stats name and records a directory or an (empty) file there.
func (r *Recorder) Stat(name string) (fs.FileInfo, error) {
	fi, err := fs.Stat(r.FS, name)
	if err != nil {
		return fi, err
	}
	if p, ok := r.resolve(name); ok {
		if p = r.finalLink(p); p != "" {
			if fi.IsDir() {
				r.add(Entry{Kind: 'd', Path: p})
			} else {
				r.add(Entry{Kind: 'f', Path: p})
			}
		}
	}
	return fi, nil
}

// Entries returns what was recorded, sorted as archives list them.
func (r *Recorder) Entries() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Entry, 0, len(r.entries))
	for _, e := range r.entries {
		out = append(out, e)
	}
	Sort(out)
	return out
}

// Failures lists the calls that failed, "name: error", in order.
func (r *Recorder) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}

// read reads name whole, or at most Limit bytes.
func (r *Recorder) read(name string) ([]byte, error) {
	if r.Limit <= 0 {
		return fs.ReadFile(r.FS, name)
	}
	f, err := r.FS.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, r.Limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > r.Limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("over the size limit of %d bytes", r.Limit)}
	}
	return b, nil
}
