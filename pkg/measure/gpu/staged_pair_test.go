//go:build linux

package gpu

import (
	"context"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/measure"
)

// The cross-host staged transfer with a GPU at each end (the fake driver):
// the sender's device buffer holds the pattern, the server's sessions
// receive into device buffers, and every byte is checked there.
func TestStagedAcrossWithDeviceBuffers(t *testing.T) {
	f := newMemCUDA(2)
	src, err := NewDeviceBuffer(f, 0, 3<<20+5, 256<<10, true)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	srv, err := measure.Listen(context.Background(), measure.ServerConfig{NewSink: DeviceSinks(f, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go srv.Serve(context.Background())
	c := &measure.Client{Addr: srv.Addr(), Timeout: 2 * time.Second}
	for _, store := range []bool{true, false} {
		ex, err := c.StagedFrom(context.Background(), src, 3<<20+5, 1<<20, 2, store, measure.RepeatConfig{Budget: 30 * time.Millisecond})
		if err != nil {
			t.Fatalf("store %v: %v", store, err)
		}
		if ex.Flows != 2 || ex.Received == 0 {
			t.Errorf("store %v: %+v", store, ex)
		}
	}
	// A corrupting H2D is found by the receiver's check.
	f.corrupt = true
	if _, err := c.StagedFrom(context.Background(), src, 1<<20, 1<<20, 1, true, measure.RepeatConfig{Budget: 10 * time.Millisecond}); err == nil {
		t.Error("a corrupted transfer passed the pattern check")
	}
}
