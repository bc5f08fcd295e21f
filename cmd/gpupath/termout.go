package main

import (
	"io"

	"github.com/gpupath/gpupath/internal/cli"
	"github.com/gpupath/gpupath/internal/termtext"
)

// cleanTerm wraps a command's stdout or stderr in the one terminal writer
// (termtext.Writer), so that a string from outside (a scenario's name, a
// manifest's hostname, another tool's output, an --out path) cannot send
// escape sequences to the user's terminal; call flush when done.
func cleanTerm(w io.Writer) (io.Writer, func() error) {
	t := &termtext.Writer{W: w}
	return t, t.Flush
}

// progressTerm is w for measure's progress bar: carriage returns kept.
func progressTerm(w io.Writer) io.Writer { return &termtext.Writer{W: rawTerm(w), KeepCR: true} }

// rawTerm is the writer under a terminal writer (to ask whether it is a
// terminal), w itself otherwise.
func rawTerm(w io.Writer) io.Writer {
	if t, ok := w.(*termtext.Writer); ok {
		return t.W
	}
	return w
}

// device is the file under a command's writers (the terminal writer, then
// cli.StopWriter), to ask whether it is a terminal; w itself otherwise.
func device(w io.Writer) io.Writer {
	w = rawTerm(w)
	if s, ok := w.(*cli.StopWriter); ok {
		return s.W
	}
	return w
}
