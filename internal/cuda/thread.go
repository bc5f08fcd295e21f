package cuda

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// Thread is one goroutine locked to its OS thread, on which every call of
// one side of a measurement runs: the driver's current context is a property
// of the thread, and a call from another thread fails with
// CUDA_ERROR_INVALID_CONTEXT. Between jobs it spins for a while before it
// sleeps, so that a timed job starts on a running thread rather than one
// just woken (waking a halted CPU is harness noise, not part of a transfer).
// The thread stays locked until Stop: the CUDA state bound to it dies with
// it.
type Thread struct {
	slot atomic.Pointer[func()]
	wake chan struct{} // capacity 1: a token means "look at the slot"
	quit chan struct{}
}

// threadSpin is how long an idle thread spins before it sleeps.
const threadSpin = time.Millisecond

// StartThread starts a locked thread and runs setup on it first; an error
// from setup stops the thread and is returned.
func StartThread(setup func() error) (*Thread, error) {
	t := &Thread{wake: make(chan struct{}, 1), quit: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		errc <- setup()
		for {
			deadline := time.Now().Add(threadSpin)
			for {
				if f := t.slot.Swap(nil); f != nil {
					(*f)()
					deadline = time.Now().Add(threadSpin)
					continue
				}
				if !time.Now().Before(deadline) {
					break
				}
			}
			select {
			case <-t.wake:
			case <-t.quit:
				return
			}
		}
	}()
	if err := <-errc; err != nil {
		t.Stop()
		return nil, err
	}
	return t, nil
}

// Stop ends the thread (after the job it runs, if any).
func (t *Thread) Stop() { close(t.quit) }

// Do runs f on the thread and waits for it. A panic in f is returned as an
// error rather than ending the process with the thread's CUDA state.
func (t *Thread) Do(f func() error) error { return <-t.Go(f) }

// Go runs f on the thread and returns at once; the channel yields f's
// error. One job at a time: the caller waits for a job before it starts the
// next.
func (t *Thread) Go(f func() error) <-chan error {
	errc := make(chan error, 1)
	job := func() {
		defer func() {
			if r := recover(); r != nil {
				errc <- fmt.Errorf("cuda: panic: %v", r)
			}
		}()
		errc <- f()
	}
	t.slot.Store(&job)
	select {
	case t.wake <- struct{}{}:
	default: // a token is already pending: the thread will look
	}
	return errc
}

// HostBytes views n bytes of host memory that Go does not manage (pinned
// memory from MemAllocHost, an AllocPageable mapping) at p as a slice.
func HostBytes(p uintptr, n int64) []byte {
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}
