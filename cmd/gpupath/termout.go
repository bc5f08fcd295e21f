package main

import (
	"bytes"
	"io"

	"github.com/gpupath/gpupath/internal/termtext"
)

// termWriter passes text to w line by line through termtext.CleanText, so
// that a string from outside (a scenario's name or description, a
// manifest's cpu_model, a line of another tool's output) cannot send
// escape sequences to the user's terminal. Lines are split at '\n', which
// never occurs inside a UTF-8 sequence; Flush writes a last line without
// one. Text without control characters passes unchanged.
type termWriter struct {
	w   io.Writer
	buf []byte
	err error
}

// cleanTerm wraps stdout for a command's output; call flush when done.
func cleanTerm(stdout io.Writer) (io.Writer, func() error) {
	t := &termWriter{w: stdout}
	return t, t.Flush
}

func (t *termWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	t.buf = append(t.buf, p...)
	if i := bytes.LastIndexByte(t.buf, '\n'); i >= 0 {
		_, t.err = io.WriteString(t.w, termtext.CleanText(string(t.buf[:i+1])))
		t.buf = append(t.buf[:0], t.buf[i+1:]...)
	}
	return len(p), t.err
}

// Flush writes what is left.
func (t *termWriter) Flush() error {
	if t.err == nil && len(t.buf) > 0 {
		_, t.err = io.WriteString(t.w, termtext.CleanText(string(t.buf)))
		t.buf = t.buf[:0]
	}
	return t.err
}
