package measure

import (
	"context"
	"errors"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpupath/gpupath/internal/rawsock"
	"github.com/gpupath/gpupath/pkg/record"
)

func init() { Register("syscall", func(Env) Probe { return &syscallProbe{} }) }

// syscallProbe measures the fixed per-call cost of the system calls on the
// TCP path, on one thread and without waiting for anything:
//
//	getppid      a bare system call (kernel entry and exit), for reference
//	socketpair   a 1-byte write and read on an AF_UNIX socket pair (per pair)
//	tcp-send     one send of Bytes on a loopback TCP connection with
//	             TCP_NODELAY, the receiver not waiting: the transmit path;
//	             on loopback the receiver's IP/TCP input (softirq) and the
//	             ACK run inside this call too
//	tcp-recv     one receive of Bytes already queued on the other end of that
//	             connection: the receive system call and the copy to user
//
// Sizes (Plan.Sizes) set the tcp-send/tcp-recv message size (default 1 B).
type syscallProbe struct{}

func (*syscallProbe) Name() string { return "syscall" }

// syscallMaxSize is the largest size the syscall probe sends and receives.
const syscallMaxSize = 64 << 10

// SizeRange is the sizes the probe takes (SizeRanger).
func (*syscallProbe) SizeRange() (lo, hi int64) { return 1, syscallMaxSize }
func (*syscallProbe) Available() error          { return nil }
func (*syscallProbe) Steps(plan Plan) int {
	return 2 + 2*len(syscallSizes(plan))
}

func syscallSizes(plan Plan) []int64 {
	if len(plan.Sizes) > 0 {
		return plan.Sizes
	}
	return []int64{1}
}

// tcpBatch is how many sends (then receives) one tcp sample times: small
// enough that the batch fits the default socket buffers many times over.
const tcpBatch = 32

func (p *syscallProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	sizes := syscallSizes(plan)
	if err := checkSizeRange(p.Name(), 1, syscallMaxSize, sizes); err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	steps, done := 2+2*len(sizes), 0
	budget := func() time.Duration {
		if plan.PerSize > 0 {
			return plan.PerSize
		}
		left := plan.Budget - time.Since(start)
		return max(left/time.Duration(max(steps-done, 1)), 10*time.Millisecond)
	}
	cfg := func() RepeatConfig { return RepeatConfig{Budget: budget(), Tolerance: plan.Tolerance} }
	record := func(variant, stage string, size int64, st Stats, batch int, note string) error {
		done++
		return emit(record.Result{
			Probe: "syscall", Variant: variant, Stage: stage, Path: "host-tcp", Target: "host", Timer: "wall",
			Bytes: size, Iterations: st.Iterations, MinS: st.Min, MedianS: st.Median, P99S: st.P99,
			MeanS: st.Mean, Spread: st.Spread, Stable: st.Stable,
			Extra: map[string]float64{"batch": float64(batch)},
			Note:  note,
		})
	}

	// getppid: a bare system call.
	const ppidBatch = 1000
	st, _, err := Repeat(ctx, cfg(), func() (float64, error) {
		t0 := time.Now()
		for i := 0; i < ppidBatch; i++ {
			unix.Getppid()
		}
		return time.Since(t0).Seconds() / ppidBatch, nil
	})
	if err != nil {
		return err
	}
	if err := record("getppid", "", 0, st, ppidBatch, "time per getppid(2) call, batches of 1000 on one thread"); err != nil {
		return err
	}

	// socketpair: write 1 byte, read it back.
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return os.NewSyscallError("socketpair", err)
	}
	a, err := rawsock.NewConn(fds[0], "socketpair", 5*time.Second)
	if err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return err
	}
	defer a.Close()
	b, err := rawsock.NewConn(fds[1], "socketpair", 5*time.Second)
	if err != nil {
		unix.Close(fds[1])
		return err
	}
	defer b.Close()
	const pairBatch = 64
	one := make([]byte, 1)
	st, _, err = Repeat(ctx, cfg(), func() (float64, error) {
		t0 := time.Now()
		for i := 0; i < pairBatch; i++ {
			if err := a.WriteAll(one); err != nil {
				return 0, err
			}
			if err := b.ReadFull(one); err != nil {
				return 0, err
			}
		}
		return time.Since(t0).Seconds() / pairBatch, nil
	})
	if err != nil {
		return err
	}
	if err := record("socketpair", "", 1, st, pairBatch, "time per 1-byte write + read pair on an AF_UNIX stream socket pair, one thread"); err != nil {
		return err
	}

	// tcp-send / tcp-recv on a loopback connection.
	for _, size := range sizes {
		if err := ctx.Err(); err != nil {
			return err
		}
		sendSt, recvSt, err := tcpSendRecv(ctx, size, cfg())
		if err != nil {
			return err
		}
		if err := record("tcp-send", "B", size, sendSt, tcpBatch,
			"time per send(2) on loopback TCP with TCP_NODELAY, receiver not waiting; includes the loopback receive softirq and ACK"); err != nil {
			return err
		}
		if err := record("tcp-recv", "F", size, recvSt, tcpBatch,
			"time per recv(2) of a message already queued on loopback TCP: system call + copy to user"); err != nil {
			return err
		}
	}
	return nil
}

// tcpSendRecv times sends and receives of size bytes on one loopback TCP
// connection, both ends driven by the calling (locked) thread.
func tcpSendRecv(ctx context.Context, size int64, cfg RepeatConfig) (send, recv Stats, err error) {
	const timeout = 5 * time.Second
	ln, err := rawsock.Listen(ctx, "127.0.0.1:0", "", timeout)
	if err != nil {
		return send, recv, err
	}
	defer ln.Close()
	tx, err := rawsock.Dial(ctx, ln.Addr().String(), "", timeout, SocketOptions{})
	if err != nil {
		return send, recv, err
	}
	defer tx.Close()
	rx, err := ln.Accept(timeout, timeout, SocketOptions{})
	if err != nil {
		if errors.Is(err, ErrTimeout) {
			err = errors.New("loopback accept timed out")
		}
		return send, recv, err
	}
	defer rx.Close()
	buf := make([]byte, size)
	var recvAll []float64
	send, sendSamples, err := Repeat(ctx, cfg, func() (float64, error) {
		t0 := time.Now()
		for i := 0; i < tcpBatch; i++ {
			if err := tx.WriteAll(buf); err != nil {
				return 0, err
			}
		}
		t1 := time.Now()
		for i := 0; i < tcpBatch; i++ {
			if err := rx.ReadFull(buf); err != nil {
				return 0, err
			}
		}
		recvAll = append(recvAll, time.Since(t1).Seconds()/tcpBatch)
		return t1.Sub(t0).Seconds() / tcpBatch, nil
	})
	if err != nil {
		return send, recv, err
	}
	// Each call of the operation added one receive time; the warm-up's
	// come first and are dropped, as Repeat drops the send times.
	recv = Summarize(recvAll[len(recvAll)-len(sendSamples):])
	recv.Stable = send.Stable
	return send, recv, nil
}
