// Package rawsock is the raw TCP sockets that gpupath's network probes
// measure through: plain blocking file descriptors driven by direct system
// calls from a goroutine locked to its OS thread, with no netpoller hand-off
// between a packet's arrival and the reader (as in a C benchmark: sockperf,
// iperf3). Every blocking call has a deadline: SO_RCVTIMEO and SO_SNDTIMEO
// on the socket, poll(2) with a timeout for connect, and a bounded wait for
// accept. Sockets can be made inside a network namespace.
//
// It is shared by pkg/measure's tcp and syscall probes and by the staged
// GPU transfer of pkg/measure/gpu. It measures nothing itself and knows no
// protocol above TCP. Linux only.
package rawsock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpupath/gpupath/pkg/units"
)

// ErrTimeout is returned (wrapped) when a peer does not answer within the
// configured timeout.
var ErrTimeout = errors.New("timed out")

// Conn is a connected, blocking TCP socket.
type Conn struct {
	fd      int
	timeout time.Duration
	peer    string
	// addr is the peer's address of an accepted connection.
	addr netip.AddrPort
	// until, when set, is an absolute deadline for every read and write:
	// a peer that trickles bytes (each system call makes progress, so the
	// socket timeouts never fire) is cut off there.
	until time.Time
}

// SetUntil sets an absolute deadline for the reads and writes that follow
// (the zero time removes it): checked between system calls, so a peer
// that trickles bytes is cut off there. Each call is still bounded by the
// socket timeout.
func (c *Conn) SetUntil(t time.Time) { c.until = t }

// late reports whether the connection's absolute deadline has passed.
func (c *Conn) late() bool { return !c.until.IsZero() && time.Now().After(c.until) }

// Resolve turns host:port into a socket address. Names are looked up with
// the deadline of ctx.
func Resolve(ctx context.Context, addr string, timeout time.Duration) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(addr); err == nil {
		return ap, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad address %q: want host:port", addr)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad port in %q", addr)
	}
	if host == "" {
		return netip.AddrPortFrom(netip.IPv4Unspecified(), uint16(p)), nil
	}
	lctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("Resolve %s: %w", host, err)
	}
	if len(ips) == 0 {
		return netip.AddrPort{}, fmt.Errorf("Resolve %s: no address", host)
	}
	for _, ip := range ips { // prefer IPv4
		if ip.Unmap().Is4() {
			return netip.AddrPortFrom(ip.Unmap(), uint16(p)), nil
		}
	}
	return netip.AddrPortFrom(ips[0], uint16(p)), nil
}

func sockaddr(ap netip.AddrPort) (unix.Sockaddr, int) {
	a := ap.Addr().Unmap()
	if a.Is4() {
		return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: a.As4()}, unix.AF_INET
	}
	return &unix.SockaddrInet6{Port: int(ap.Port()), Addr: a.As16()}, unix.AF_INET6
}

// AddrPortOf is the address of an IPv4 or IPv6 socket address (the zero
// value for another kind).
func AddrPortOf(sa unix.Sockaddr) netip.AddrPort {
	switch v := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(v.Addr), uint16(v.Port))
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(v.Addr), uint16(v.Port))
	}
	return netip.AddrPort{}
}

// pollFD waits until fd is ready for events or the deadline passes. It
// retries on EINTR and never waits past the deadline.
func pollFD(fd int, events int16, deadline time.Time) error {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return ErrTimeout
		}
		ms := int(left / time.Millisecond)
		if ms < 1 {
			ms = 1
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: events}}
		n, err := unix.Poll(fds, ms)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return os.NewSyscallError("poll", err)
		}
		if n > 0 {
			return nil
		}
	}
}

// setTimeouts sets the receive and send timeouts of a blocking socket.
func setTimeouts(fd int, d time.Duration) error {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return os.NewSyscallError("setsockopt SO_RCVTIMEO", err)
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		return os.NewSyscallError("setsockopt SO_SNDTIMEO", err)
	}
	return nil
}

// Options are the settings applied to every probe socket.
type Options struct {
	// SendBuffer and RecvBuffer set SO_SNDBUF/SO_RCVBUF in bytes; zero keeps
	// the kernel's autotuning (as iperf3 and sockperf do by default).
	SendBuffer, RecvBuffer int
}

func (o Options) apply(fd int) error {
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		return os.NewSyscallError("setsockopt TCP_NODELAY", err)
	}
	if o.SendBuffer > 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, o.SendBuffer); err != nil {
			return os.NewSyscallError("setsockopt SO_SNDBUF", err)
		}
	}
	if o.RecvBuffer > 0 {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, o.RecvBuffer); err != nil {
			return os.NewSyscallError("setsockopt SO_RCVBUF", err)
		}
	}
	return nil
}

// Dial connects to addr within timeout, from network namespace netns when
// it is not empty. The socket is left blocking with TCP_NODELAY and the I/O
// timeout set.
func Dial(ctx context.Context, addr, netns string, timeout time.Duration, opt Options) (*Conn, error) {
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	ap, err := Resolve(ctx, addr, timeout)
	if err != nil {
		return nil, err
	}
	sa, family := sockaddr(ap)
	fd, err := socketIn(netns, family)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			unix.Close(fd)
		}
	}()
	if err := opt.apply(fd); err != nil {
		return nil, err
	}
	err = unix.Connect(fd, sa)
	if err != nil && !errors.Is(err, unix.EINPROGRESS) && !errors.Is(err, unix.EINTR) {
		return nil, fmt.Errorf("connect %s: %w", addr, err)
	}
	if err != nil {
		if err := pollFD(fd, unix.POLLOUT, deadline); err != nil {
			if errors.Is(err, ErrTimeout) {
				return nil, fmt.Errorf("connect %s: no answer within %s: %w", addr, units.Seconds(timeout.Seconds()).Human(), ErrTimeout)
			}
			return nil, fmt.Errorf("connect %s: %w", addr, err)
		}
		soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err != nil {
			return nil, fmt.Errorf("connect %s: %w", addr, err)
		}
		if soerr != 0 {
			return nil, fmt.Errorf("connect %s: %w", addr, unix.Errno(soerr))
		}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		return nil, os.NewSyscallError("fcntl", err)
	}
	if err := setTimeouts(fd, timeout); err != nil {
		return nil, err
	}
	ok = true
	return &Conn{fd: fd, timeout: timeout, peer: addr}, nil
}

// ReadFull reads exactly len(b) bytes. A clean end of stream before the
// first byte is io.EOF, inside the buffer io.ErrUnexpectedEOF.
func (c *Conn) ReadFull(b []byte) error {
	got := 0
	var lim opLimit
	for got < len(b) {
		n, err := unix.Read(c.fd, b[got:])
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				if lim.over(c.timeout, len(b)) {
					return c.ioErr("read", unix.EAGAIN)
				}
				continue
			}
			return c.ioErr("read", err)
		}
		if n == 0 {
			if got == 0 {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		got += n
		if got < len(b) && (lim.over(c.timeout, len(b)) || c.late()) {
			return c.ioErr("read", unix.EAGAIN)
		}
	}
	return nil
}

// opLimit bounds the total time of one readFull or writeAll that needs more
// than one system call: the socket timeouts bound each call (no progress for
// that long), this bounds a peer that trickles bytes. The limit is the
// timeout plus one timeout per MiB of the buffer, far above any real link.
type opLimit struct{ start time.Time }

func (l *opLimit) over(timeout time.Duration, n int) bool {
	if l.start.IsZero() {
		l.start = time.Now()
		return false
	}
	return time.Since(l.start) > timeout*time.Duration(1+n>>20)
}

// ReadSome reads what is there (at least one byte); 0 with io.EOF at the end.
func (c *Conn) ReadSome(b []byte) (int, error) {
	for {
		n, err := unix.Read(c.fd, b)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return 0, c.ioErr("read", err)
		}
		if n == 0 {
			return 0, io.EOF
		}
		if c.late() {
			return n, c.ioErr("read", unix.EAGAIN)
		}
		return n, nil
	}
}

// WriteAll writes all of b.
func (c *Conn) WriteAll(b []byte) error {
	total := len(b)
	var lim opLimit
	for len(b) > 0 {
		n, err := unix.Write(c.fd, b)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				if lim.over(c.timeout, total) {
					return c.ioErr("write", unix.EAGAIN)
				}
				continue
			}
			return c.ioErr("write", err)
		}
		b = b[n:]
		if len(b) > 0 && (lim.over(c.timeout, total) || c.late()) {
			return c.ioErr("write", unix.EAGAIN)
		}
	}
	return nil
}

// ReadNow reads what has already arrived, without waiting: 0 when nothing
// has (or at the end of stream).
func (c *Conn) ReadNow(b []byte) int {
	for {
		n, _, err := unix.Recvfrom(c.fd, b, unix.MSG_DONTWAIT)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
}

// Unread reports whether bytes have arrived that no read has taken yet.
func (c *Conn) Unread() bool {
	n, err := unix.IoctlGetInt(c.fd, unix.SIOCINQ)
	return err == nil && n > 0
}

// PeerAddr is the peer's address of a connection from Accept (the zero
// AddrPort otherwise).
func (c *Conn) PeerAddr() netip.AddrPort { return c.addr }

// SetTimeout changes the socket timeout that bounds every blocking read and
// write (SO_RCVTIMEO, SO_SNDTIMEO): a server gives a connection a short one
// until its peer has said who it is.
func (c *Conn) SetTimeout(d time.Duration) error {
	if err := setTimeouts(c.fd, d); err != nil {
		return err
	}
	c.timeout = d
	return nil
}

// FD is the socket's file descriptor (-1 once closed).
func (c *Conn) FD() int { return c.fd }

// NewConn wraps a connected stream socket fd (a socketpair end, say) as a
// Conn with the I/O timeout set on it; peer names it in errors.
func NewConn(fd int, peer string, timeout time.Duration) (*Conn, error) {
	c := &Conn{fd: fd, timeout: timeout, peer: peer}
	if err := setTimeouts(fd, timeout); err != nil {
		return nil, err
	}
	return c, nil
}

// Addr is the address the listener is bound to.
func (l *Listener) Addr() netip.AddrPort { return l.addr }

func (c *Conn) ioErr(op string, err error) error {
	if errors.Is(err, unix.EAGAIN) {
		return fmt.Errorf("%s %s: no answer within %s: %w", op, c.peer, units.Seconds(c.timeout.Seconds()).Human(), ErrTimeout)
	}
	return fmt.Errorf("%s %s: %w", op, c.peer, err)
}

// Shutdown ends both directions at once (shutdown(2) SHUT_RDWR): a read or
// write blocked on another thread returns. The descriptor stays open until
// Close. Safe to call from any goroutine.
func (c *Conn) Shutdown() error {
	return os.NewSyscallError("shutdown", unix.Shutdown(c.fd, unix.SHUT_RDWR))
}

// CloseWrite sends FIN: the peer reads end of stream.
func (c *Conn) CloseWrite() error {
	return os.NewSyscallError("shutdown", unix.Shutdown(c.fd, unix.SHUT_WR))
}

// Close closes the socket; closing it again does nothing.
func (c *Conn) Close() error {
	if c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	return err
}

// TCPInfo returns the kernel's TCP_INFO for the socket.
func (c *Conn) TCPInfo() (*unix.TCPInfo, error) {
	return unix.GetsockoptTCPInfo(c.fd, unix.IPPROTO_TCP, unix.TCP_INFO)
}

// Listener is a listening TCP socket.
type Listener struct {
	fd   int
	addr netip.AddrPort
}

// Listen binds and listens on addr, in network namespace netns when it is
// not empty.
func Listen(ctx context.Context, addr, netns string, timeout time.Duration) (*Listener, error) {
	ap, err := Resolve(ctx, addr, timeout)
	if err != nil {
		return nil, err
	}
	sa, family := sockaddr(ap)
	fd, err := socketIn(netns, family)
	if err != nil {
		return nil, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setsockopt SO_REUSEADDR", err)
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EADDRINUSE) {
			return nil, fmt.Errorf("listen %s: port in use: %w", ap, err)
		}
		return nil, fmt.Errorf("listen %s: %w", ap, err)
	}
	// A long accept queue: connections that churn (idle sockets a server
	// closes and their owner reopens) must not crowd an honest client's
	// handshake out of it (a dropped SYN costs the client a second).
	if err := unix.Listen(fd, 1024); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listen %s: %w", ap, err)
	}
	got, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("getsockname", err)
	}
	return &Listener{fd: fd, addr: AddrPortOf(got)}, nil
}

// Accept waits up to wait for a connection; ErrTimeout when none came. It
// polls the non-blocking socket and sleeps between tries (parking the
// goroutine), rather than blocking a thread in poll(2): a thread blocked in
// a system call holds one of the runtime's Ps, which the measuring threads
// of this process need.
func (l *Listener) Accept(wait, ioTimeout time.Duration, opt Options) (*Conn, error) {
	deadline := time.Now().Add(wait)
	for {
		nfd, sa, err := unix.Accept4(l.fd, unix.SOCK_CLOEXEC)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.ECONNABORTED) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			left := time.Until(deadline)
			if left <= 0 {
				return nil, ErrTimeout
			}
			time.Sleep(min(left, 5*time.Millisecond))
			continue
		}
		if err != nil {
			return nil, os.NewSyscallError("accept", err)
		}
		ap := AddrPortOf(sa)
		c := &Conn{fd: nfd, timeout: ioTimeout, peer: ap.String(), addr: ap}
		if err := opt.apply(nfd); err != nil {
			c.Close()
			return nil, err
		}
		if err := setTimeouts(nfd, ioTimeout); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}
}

// Close closes the listening socket; closing it again does nothing.
func (l *Listener) Close() error {
	if l.fd < 0 {
		return nil
	}
	err := unix.Close(l.fd)
	l.fd = -1
	return err
}

// socketIn makes a non-blocking, close-on-exec TCP socket of family in
// network namespace netns ("" for this thread's). A socket keeps the
// namespace it was made in, so only this call needs to run there.
func socketIn(netns string, family int) (int, error) {
	fd := -1
	err := InNetns(netns, func() error {
		var err error
		fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
		return os.NewSyscallError("socket", err)
	})
	return fd, err
}

// InNetns runs f on an OS thread that has entered the named network
// namespace (/var/run/netns/NAME, as `ip netns add` makes it, or an absolute
// path), then restores the thread. Sockets created by f stay in that
// namespace for their whole life. With an empty name f runs as is.
func InNetns(name string, f func() error) error {
	if name == "" {
		return f()
	}
	path := name
	if path[0] != '/' {
		path = "/var/run/netns/" + name
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("netns: %w", err)
			return
		}
		defer orig.Close()
		target, err := os.Open(path)
		if err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("netns %s: %w", name, err)
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("netns %s: setns: %w", name, err)
			return
		}
		ferr := f()
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			// Leave the thread locked: it ends with this goroutine and
			// never runs other code in the wrong namespace.
			done <- fmt.Errorf("netns %s: restoring the namespace: %w", name, err)
			return
		}
		runtime.UnlockOSThread()
		done <- ferr
	}()
	return <-done
}
