package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
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

// An error's line is at most MaxMessageBytes and a few more: a message
// quoting a 100 kB argument prints its start and its length.
func TestExitShortensLongMessages(t *testing.T) {
	var b bytes.Buffer
	code := Exit(&UsageError{Err: errors.New("unknown entry " + strings.Repeat("é", 50000))}, &b)
	if code != ExitUsage || b.Len() > MaxMessageBytes+64 || !strings.HasSuffix(b.String(), "bytes in all)\n") || strings.ContainsRune(b.String(), '\uFFFD') {
		t.Errorf("exit %d, %d bytes: %q", code, b.Len(), b.String()[max(0, b.Len()-60):])
	}
}
