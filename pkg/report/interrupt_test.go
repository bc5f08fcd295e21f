package report

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// afterN is a context whose Err turns to Canceled after n calls: an
// interrupt that arrives in the middle of a render.
type afterN struct {
	context.Context
	n atomic.Int64
}

func (c *afterN) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestRenderStopsWhenCancelled(t *testing.T) {
	in := measuredInput()
	for _, n := range []int64{0, 1, 3, 10} {
		ctx := &afterN{Context: context.Background()}
		ctx.n.Store(n)
		start := time.Now()
		_, err := RenderContext(ctx, in)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled after %d checks: %v", n, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("cancelled after %d checks: took %v", n, d)
		}
	}
}

func TestRenderPageLimit(t *testing.T) {
	old := pageLimit
	defer func() { pageLimit = old }()
	pageLimit = 2
	_, err := Render(goldenInput())
	if !errors.Is(err, ErrTooManyPages) {
		t.Fatalf("err %v", err)
	}
	if want := "of 2 (section"; !strings.Contains(err.Error(), want) {
		t.Errorf("%v does not name the limit", err)
	}
}

// An existing empty directory that cannot be renamed over (the working
// directory) receives the report.
func TestWriteDirIntoEmptyWorkingDir(t *testing.T) {
	t.Chdir(t.TempDir())
	r := &Report{Files: []File{{"index.html", []byte("x")}, {"report.pdf", []byte("y")}}}
	if err := r.WriteDir("."); err != nil {
		t.Fatalf("WriteDir(.): %v", err)
	}
	if err := r.WriteDir("."); !errors.Is(err, ErrExists) {
		t.Errorf("second WriteDir(.): %v", err)
	}
}
