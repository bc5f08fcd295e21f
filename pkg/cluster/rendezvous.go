package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"
)

// RendezvousFile is the file in a shared directory where rank 0 writes its
// address for the job: gpupath-<job>.addr (gpupath-pair.addr without a job).
func RendezvousFile(dir, job string) string {
	if job == "" {
		job = "pair"
	}
	return filepath.Join(dir, "gpupath-"+safeName.ReplaceAllString(job, "_")+".addr")
}

var safeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// CheckRendezvous says, before anything runs, whether dir can be the
// directory both ranks share: it exists, is a directory (or a link to one)
// and can be written (rank 0 writes its address there). Every rank checks
// it, so a mistyped path fails at once on each, not after the peer wait.
// The error is the reason, without the path; "" (no rendezvous) is nil.
func CheckRendezvous(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("no such directory (give a directory both hosts share)")
	case err != nil:
		return safeio.PathReason(err)
	case !st.IsDir():
		return errors.New("not a directory (give a directory both hosts share)")
	}
	if err := safeio.CanWrite(dir); err != nil {
		return fmt.Errorf("the directory cannot be written (%v)", safeio.PathReason(err))
	}
	return nil
}

// maxAddrFile bounds what ReadRendezvous reads: an address is short.
const maxAddrFile = 512

// Publish writes addr (host:port) to path atomically (a temporary file
// renamed into place), so the reader never sees half an address.
func Publish(path, addr string) error {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("cluster: rendezvous address %q: %w", addr, err)
	}
	// A previous run's address is replaced (force): the file is the job's.
	if err := safeio.WriteFile(path, []byte(addr+"\n"), true); err != nil {
		return fmt.Errorf("cluster: rendezvous: %w", err)
	}
	return nil
}

// ErrPeerTimeout says the peer did not appear within the wait.
var ErrPeerTimeout = errors.New("cluster: the peer did not come")

// Await polls path until rank 0's address appears, ctx ends or wait passes.
// Each poll reads at most a few hundred bytes; a file that is not one
// host:port line is an error.
func Await(ctx context.Context, path string, wait time.Duration) (string, error) {
	deadline := time.Now().Add(wait)
	tick := 50 * time.Millisecond
	for {
		addr, err := readAddr(ctx, path)
		if err == nil {
			return addr, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%w: no %s after %s", ErrPeerTimeout, path, wait)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(tick):
		}
		tick = min(2*tick, time.Second)
	}
}

// readAddr reads the rendezvous file through the bounded reader, inside its
// directory (os.Root): a FIFO or a device is refused at once, never waited
// on, and a link out of the directory — one anybody who can write to a
// shared directory could plant — is not followed. What the file holds is
// not echoed when it is not an address: it says only how long it is.
func readAddr(ctx context.Context, path string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	defer root.Close()
	b, err := safeio.ReadFSFile(root.FS(), filepath.Base(path), maxAddrFile)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("cluster: rendezvous: %w", err)
	}
	addr := strings.TrimSpace(string(b))
	if _, _, err := net.SplitHostPort(addr); err != nil || strings.ContainsAny(addr, " \n\t") {
		return "", fmt.Errorf("cluster: rendezvous %s holds %d bytes that are not one host:port", path, len(b))
	}
	return addr, nil
}

// AdvertiseIP is the address rank 0 publishes when none is given: the first
// IPv4 address of an interface that is up and not loopback (on a test host,
// its veth end), else 127.0.0.1.
func AdvertiseIP() string {
	ifs, err := net.Interfaces()
	if err != nil {
		return "127.0.0.1"
	}
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP.String()
			}
		}
	}
	return "127.0.0.1"
}
