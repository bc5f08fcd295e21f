//go:build linux

package gpu

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/cuda"
	"github.com/gpupath/gpupath/internal/gputest"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

// stubOpen opens the CUDA stub at path.
func stubOpen(path string) func() (cuda.Driver, error) {
	return func() (cuda.Driver, error) { return cuda.OpenAt(path) }
}

// TestCUDAProbeAgainstStub runs the whole probe through the real purego
// binding on the stub: two GPUs, peer access, every variant.
func TestCUDAProbeAgainstStub(t *testing.T) {
	path := gputest.CUDAStub(t)
	t.Setenv("CUDASTUB_HOST_LIMIT", "65536") // pinned memory for 64 KiB at most
	p := &CUDACopy{Open: stubOpen(path),
		PCIe: func(string) (PCIeMonitor, error) { return nil, errors.New("no NVML with the stub") }}
	res, err := runCollect(t, p, measure.Plan{Sizes: []int64{4, 64 << 10, 1 << 20}, Budget: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	inv := p.Inventory().(record.CUDAInventory)
	if len(inv.Devices) != 2 || inv.Devices[1].PCIBusID != "0000:19:00.0" || len(inv.Peers) != 2 || !inv.Peers[0].Enabled || !inv.Peers[1].Enabled {
		t.Errorf("inventory %+v", inv)
	}
	if inv.Capacity["pinned"] != 64<<10 || inv.Capacity["device"] != 1<<20 {
		t.Errorf("capacity %v", inv.Capacity)
	}
	if !strings.Contains(strings.Join(inv.Notes, "\n"), "h2d-pinned gpu0 1048576 B skipped") {
		t.Errorf("notes %v", inv.Notes)
	}
	variants := map[string]bool{}
	for _, r := range res {
		variants[r.Variant+" "+r.Target] = true
		if r.MedianS <= 0 || r.Iterations < 5 {
			t.Errorf("record %+v", r)
		}
	}
	for _, v := range []string{"h2d-pinned gpu0", "d2h-pinned-stream gpu0", "h2d-pageable gpu0", "d2d-stream gpu0", "peer gpu0->gpu1", "peer-stream gpu1->gpu0"} {
		if !variants[v] {
			t.Errorf("no records of %s (have %v)", v, variants)
		}
	}
	live, retained := gputest.CUDAStubState(t, path)
	if live != 0 {
		t.Errorf("%d stub objects leaked", live)
	}
	for d, n := range retained {
		if n != 0 {
			t.Errorf("context of device %d still retained %d times", d, n)
		}
	}
}

func TestCUDAStubErrors(t *testing.T) {
	path := gputest.CUDAStub(t)
	open := stubOpen(path)
	t.Setenv("CUDASTUB_NO_DEVICE", "1")
	_, err := runCollect(t, &CUDACopy{Open: open}, measure.Plan{})
	if !errors.Is(err, measure.ErrUnavailable) || !strings.Contains(err.Error(), "cuInit: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected") {
		t.Errorf("no device: %v", err)
	}
	os.Unsetenv("CUDASTUB_NO_DEVICE")
	t.Setenv("CUDASTUB_FAIL", "cuMemcpyDtoH_v2")
	_, err = runCollect(t, &CUDACopy{Open: open, PCIe: func(string) (PCIeMonitor, error) { return nil, errors.New("none") }},
		measure.Plan{Sizes: []int64{4}, Options: map[string]string{"variants": "d2h-pinned"}})
	if !errors.Is(err, cuda.ErrorInvalidValue) || !strings.Contains(err.Error(), "cuMemcpyDtoH_v2: CUDA_ERROR_INVALID_VALUE (1): invalid argument") {
		t.Errorf("failing copy: %v", err)
	}
}
