package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A write blocked on a reader that never reads ends StopGrace after the
// context does, with ErrOutputStopped, and so does every later write; a
// reader that reads gets everything, before and after the context ends.
func TestStopWriter(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, pw := io.Pipe() // nobody reads
	w := NewStopWriter(ctx, pw)
	errc := make(chan error, 1)
	go func() { _, err := w.Write([]byte("blocked")); errc <- err }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrOutputStopped) || !errors.Is(err, context.Canceled) {
			t.Errorf("blocked write: %v", err)
		}
	case <-time.After(100 * StopGrace):
		t.Fatal("a blocked write did not end after the context did")
	}
	if _, err := w.Write([]byte("later")); !errors.Is(err, ErrOutputStopped) {
		t.Errorf("later write: %v", err)
	}

	var b bytes.Buffer
	ctx2, cancel2 := context.WithCancel(context.Background())
	w2 := NewStopWriter(ctx2, &b)
	w2.Write([]byte("before "))
	cancel2()
	if _, err := w2.Write([]byte("after")); err != nil || b.String() != "before after" {
		t.Errorf("a reader that reads: %q, %v", b.String(), err)
	}
}

// An error's line is at most MaxMessageBytes, all of it: a message
// quoting a 100 kB argument keeps its start and its end (the hint after
// the argument), and counts the bytes it left out of the message.
func TestExitShortensLongMessages(t *testing.T) {
	var b bytes.Buffer
	arg := strings.Repeat("é", 50000)
	msg := "unknown entry " + arg + ": did you mean gpu-h200?"
	code := Exit(&UsageError{Err: errors.New(msg)}, &b)
	out := b.String()
	if code != ExitUsage || b.Len() > MaxMessageBytes || strings.ContainsRune(out, '\uFFFD') ||
		!strings.HasPrefix(out, "gpupath: unknown entry éé") || !strings.HasSuffix(out, "éé: did you mean gpu-h200?\n") {
		t.Errorf("exit %d, %d bytes: %q … %q", code, b.Len(), out[:40], out[max(0, b.Len()-60):])
	}
	var left, all int
	if _, err := fmt.Sscanf(out[strings.Index(out, " … (")+len(" … ("):], "%d of %d bytes left out", &left, &all); err != nil || all != len(msg) || left != len(msg)-(len(out)-len("gpupath: \n")-len(fmt.Sprintf(" … (%d of %d bytes left out) … ", left, all))) {
		t.Errorf("the count of what was left out: %d of %d (%v), message %d bytes, line %d", left, all, err, len(msg), len(out))
	}
}

// A full disk is output that could not be written, exit 1, even where a
// command wrapped it as bad input; other bad input stays exit 2.
func TestExitFullDiskIsFailed(t *testing.T) {
	for err, want := range map[error]int{
		&UsageError{fmt.Errorf("--out r: cannot write the report there: %w", syscall.ENOSPC)}:              ExitFailed,
		&UsageError{fmt.Errorf("--out r: %w", &os.PathError{Op: "write", Path: "r", Err: syscall.EDQUOT})}: ExitFailed,
		fmt.Errorf("write: %w", syscall.EIO):             ExitFailed,
		&UsageError{errors.New("--out r: it is a file")}: ExitUsage,
	} {
		if got := Exit(err, io.Discard); got != want {
			t.Errorf("%v: exit %d, want %d", err, got, want)
		}
	}
}
