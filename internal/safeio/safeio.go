// Package safeio reads files that come from outside — scenario files, run
// directories, other tools' outputs — with bounds: only regular files (a
// FIFO with no writer, /dev/zero or a directory is refused at once, never
// waited on or read without end), at most a stated number of bytes (the
// limit is named in the error), and the context checked between chunks so
// an interrupt ends a long read. It does not parse anything.
//
// It also writes every output file gpupath makes (write.go): through a
// temporary file and a rename, refusing what exists unless forced, so no
// reader sees half a file and no user file is replaced by accident.
package safeio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge says a file is over the limit it was read with.
var ErrTooLarge = errors.New("over the size limit")

// ErrNotRegular says a path is not a regular file (a device, FIFO, socket
// or directory).
var ErrNotRegular = errors.New("not a regular file")

// chunk is how much is read between context checks.
const chunk = 1 << 20

// Open opens path for reading if it is a regular file, without blocking on
// a FIFO (O_NONBLOCK; cleared once the file is known to be regular).
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kind(st.Mode()))
	}
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// ReadFile reads a whole regular file of at most limit bytes, checking ctx
// between chunks.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	return ReadFileHead(ctx, path, limit, 0, nil)
}

// ReadFileHead is ReadFile that also hands the first head bytes (all of a
// shorter file) to check as soon as they are read, and stops at its error:
// content refused by its beginning (a binary file) is not read whole. The
// buffer is sized from the file once, not grown by copies.
func ReadFileHead(ctx context.Context, path string, limit int64, head int, check func([]byte) error) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		if size = st.Size(); size > limit {
			return nil, fmt.Errorf("%s: %w of %s (%d bytes)", path, ErrTooLarge, FormatLimit(limit), size)
		}
	}
	b := make([]byte, 0, size+1) // a byte more, to see the file grew
	checked := check == nil
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := f.Read(b[len(b):min(cap(b), len(b)+chunk)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return nil, fmt.Errorf("%s: %w of %s", path, ErrTooLarge, FormatLimit(limit))
		}
		if !checked && (len(b) >= head || errors.Is(err, io.EOF)) {
			checked = true
			if cerr := check(b[:min(len(b), head)]); cerr != nil {
				return nil, fmt.Errorf("%s: %w", path, cerr)
			}
		}
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// ReadFSFile reads a regular file of fsys, at most limit bytes. What is not
// a regular file is refused from its fs.Stat, before it is opened, so a FIFO
// cannot block the read (give fsys a Stat method: fs.Stat falls back on
// Open). A file whose stated size is over the limit is refused unread;
// sysfs and procfs attributes state 4096 or 0 whatever they hold, so what
// is read is bounded too. A file system with a ReadFile method (one that
// records what is read, say) is read through it.
func ReadFSFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		// "read x: no such file or directory", whichever file system says
		// it ("statat" from os.Root, "stat" from os).
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &fs.PathError{Op: "read", Path: pe.Path, Err: pe.Err}
		}
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	tooLarge := &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w of %s", ErrTooLarge, FormatLimit(limit))}
	if st.Size() > limit {
		return nil, tooLarge
	}
	var b []byte
	if rf, ok := fsys.(fs.ReadFileFS); ok {
		b, err = rf.ReadFile(name)
	} else {
		var f fs.File
		if f, err = fsys.Open(name); err != nil {
			return nil, err
		}
		defer f.Close()
		b, err = ReadAll(context.Background(), f, limit)
	}
	if errors.Is(err, ErrTooLarge) {
		return nil, tooLarge
	}
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge
	}
	return b, nil
}

// ReadAll reads r to its end, at most limit bytes, checking ctx between
// chunks of a MiB.
func ReadAll(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	var out []byte
	buf := make([]byte, chunk)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf)
		if int64(len(out))+int64(n) > limit {
			return nil, fmt.Errorf("%w of %s", ErrTooLarge, FormatLimit(limit))
		}
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Reader wraps r so that reads fail once ctx is done or more than limit
// bytes have come through: for streaming parsers (JSON Lines readers).
type Reader struct {
	ctx   context.Context
	r     io.Reader
	limit int64
	n     int64
}

// NewReader returns a bounded, interruptible reader.
func NewReader(ctx context.Context, r io.Reader, limit int64) *Reader {
	return &Reader{ctx: ctx, r: r, limit: limit}
}

// Read implements io.Reader.
func (b *Reader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	if b.n >= b.limit {
		// One more byte would be over: look for it.
		var one [1]byte
		if n, _ := b.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%w of %s", ErrTooLarge, FormatLimit(b.limit))
		}
		return 0, io.EOF
	}
	if rest := b.limit - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	return n, err
}

// FormatLimit writes a byte limit the way the errors and --help say it
// (binary units: 64 MiB).
func FormatLimit(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
