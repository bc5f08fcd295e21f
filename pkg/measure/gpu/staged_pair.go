package gpu

import (
	"fmt"
	"sync"

	"github.com/gpupath/gpupath/internal/cuda"
	"github.com/gpupath/gpupath/pkg/measure"
)

// DeviceBuffer is one GPU's end of the cross-host staged transfer
// (measure.Client.StagedFrom on the sender, ServerConfig.NewSink on the
// receiver): a device allocation on a locked thread with the GPU's primary
// context current, and a pinned bounce buffer of one chunk. ReadAt is the
// D2H copy (device → pinned → the transfer's staging buffer), WriteAt the
// H2D copy (staging → pinned → device). The copy through the bounce buffer
// is one host copy more than the one-host staged probe makes (its ring is
// the staging buffer itself); a later step can hand the pinned memory to
// the transfer as its staging buffer.
//
// Not yet wired to a probe: the two-GPU run across hosts is not measured in
// this version (pkg/measure's staged-host is the host-memory variant).
type DeviceBuffer struct {
	drv    cuda.Driver
	w      *cuda.Thread
	dev    cuda.Device
	ptr    cuda.DevicePtr
	n      int64
	pinned uintptr
	pinLen int64
	mu     sync.Mutex // one copy at a time through the bounce buffer
}

// NewDeviceBuffer allocates n bytes on GPU ordinal and a bounce buffer of
// chunk bytes; with fill, the device buffer gets the transfer's pattern.
func NewDeviceBuffer(drv cuda.Driver, ordinal int, n, chunk int64, fill bool) (*DeviceBuffer, error) {
	if n < 1 || chunk < 1 {
		return nil, fmt.Errorf("device buffer: size %d, chunk %d", n, chunk)
	}
	b := &DeviceBuffer{drv: drv, n: n, pinLen: min(chunk, n)}
	w, err := cuda.StartThread(func() error {
		d, err := drv.Device(ordinal)
		if err != nil {
			return err
		}
		b.dev = d
		c, err := drv.PrimaryCtxRetain(d)
		if err != nil {
			return err
		}
		if err := drv.CtxSetCurrent(c); err != nil {
			return err
		}
		if b.ptr, err = drv.MemAlloc(n); err != nil {
			return fmt.Errorf("device buffer of %d bytes on gpu%d: %w", n, ordinal, err)
		}
		if b.pinned, err = drv.MemAllocHost(b.pinLen); err != nil {
			return fmt.Errorf("pinned bounce buffer of %d bytes: %w", b.pinLen, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.w = w
	if fill {
		pat := make([]byte, b.pinLen)
		for off := int64(0); off < n; off += b.pinLen {
			l := min(b.pinLen, n-off)
			measure.FillStagedPattern(pat[:l], off)
			if _, err := b.WriteAt(pat[:l], off); err != nil {
				b.Close()
				return nil, err
			}
		}
	}
	return b, nil
}

func (b *DeviceBuffer) pin(n int64) []byte {
	return cuda.HostBytes(b.pinned, n)
}

// ReadAt copies len(p) bytes at off from the GPU into p (D2H).
func (b *DeviceBuffer) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > b.n {
		return 0, fmt.Errorf("device buffer: [%d, %d) outside %d bytes", off, off+int64(len(p)), b.n)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	done := 0
	for done < len(p) {
		l := min(b.pinLen, int64(len(p)-done))
		at := off + int64(done)
		if err := b.w.Do(func() error { return b.drv.MemcpyDtoH(b.pinned, b.ptr+cuda.DevicePtr(at), l) }); err != nil {
			return done, err
		}
		copy(p[done:], b.pin(l))
		done += int(l)
	}
	return done, nil
}

// WriteAt copies p into the GPU at off (H2D).
func (b *DeviceBuffer) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > b.n {
		return 0, fmt.Errorf("device buffer: [%d, %d) outside %d bytes", off, off+int64(len(p)), b.n)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	done := 0
	for done < len(p) {
		l := min(b.pinLen, int64(len(p)-done))
		at := off + int64(done)
		copy(b.pin(l), p[done:done+int(l)])
		if err := b.w.Do(func() error { return b.drv.MemcpyHtoD(b.ptr+cuda.DevicePtr(at), b.pinned, l) }); err != nil {
			return done, err
		}
		done += int(l)
	}
	return done, nil
}

// Verify reads [off, off+n) back from the GPU and counts the bytes that
// differ from the pattern.
func (b *DeviceBuffer) Verify(off, n int64) (uint64, error) {
	got := make([]byte, n)
	if _, err := b.ReadAt(got, off); err != nil {
		return 0, err
	}
	var bad uint64
	for i, v := range got {
		if v != measure.StagedPattern(off+int64(i)) {
			bad++
		}
	}
	return bad, nil
}

// Close frees the buffers and stops the thread.
func (b *DeviceBuffer) Close() error {
	if b.w == nil {
		return nil
	}
	err := b.w.Do(func() error {
		if b.pinned != 0 {
			_ = b.drv.MemFreeHost(b.pinned)
		}
		if b.ptr != 0 {
			_ = b.drv.MemFree(b.ptr)
		}
		return b.drv.PrimaryCtxRelease(b.dev)
	})
	b.w.Stop()
	b.w = nil
	return err
}

// DeviceSinks makes the receive buffers of a Server's staged sessions on
// GPU ordinal (measure.ServerConfig.NewSink): each connection gets a device
// buffer of the whole transfer, freed when the session ends.
func DeviceSinks(drv cuda.Driver, ordinal int) func(n, chunk int64, flow, flows int) (measure.StagedSink, error) {
	return func(n, chunk int64, flow, flows int) (measure.StagedSink, error) {
		return NewDeviceBuffer(drv, ordinal, n, chunk, false)
	}
}
