package measure

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/gpupath/gpupath/internal/rawsock"
	"github.com/gpupath/gpupath/pkg/record"
)

// ErrUnavailable marks a probe that cannot run on this machine (no GPU, no
// driver, no RDMA device, no permission). It is an ordinary outcome: the
// runner records "not measured: <reason>" and goes on.
var ErrUnavailable = errors.New("not measured")

// Unavailable returns an error wrapping ErrUnavailable with the reason.
func Unavailable(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, fmt.Sprintf(format, args...))
}

// Probe measures one part of the real machine.
//
// Available says cheaply whether the probe can run here; a nil error means it
// may (Run can still find out otherwise and return ErrUnavailable). Run
// measures according to plan and hands every result to emit as soon as it is
// measured; it honours ctx between iterations and returns ctx.Err() when
// cancelled, keeping what it already emitted.
type Probe interface {
	Name() string
	Available() error
	Run(ctx context.Context, plan Plan, emit func(record.Result) error) error
}

// Plan is what the runner asks of a probe: the record format's plan
// (pkg/record), which the manifest keeps.
type Plan = record.Plan

// Env is what a run knows about its surroundings that a probe may need.
// The runner hands it to each probe's constructor (Register), and the
// probe keeps it: no probe is told about its environment after it is made.
// The zero Env is the real machine with diagnostics discarded.
type Env struct {
	// SysRoot is the sysfs mount point that probes read ("" means /sys):
	// --sysfs on the command line, a fixture tree in tests.
	SysRoot string
	// Log receives diagnostics (what was loaded, allocated, read, skipped);
	// nil discards them. Probes never print by themselves.
	Log func(format string, args ...any)
}

// Sys returns the path of elem under the sysfs root, e.g.
// env.Sys("class", "infiniband").
func (e Env) Sys(elem ...string) string {
	return filepath.Join(append([]string{sysfsRoot(e.SysRoot)}, elem...)...)
}

// Logf sends one diagnostic line to Log; it does nothing when Log is nil.
func (e Env) Logf(format string, args ...any) {
	if e.Log != nil {
		e.Log(format, args...)
	}
}

func sysfsRoot(r string) string {
	if r == "" {
		return "/sys"
	}
	return r
}

var registry = map[string]func(Env) Probe{}

// Register adds a probe constructor under its name. It is called from the
// init function of each probe's file; registering a name twice panics (a
// programming error, found by any test). The constructor gets the run's
// Env and must be cheap: it may be called only to list the probe's options.
func Register(name string, newProbe func(env Env) Probe) {
	if _, dup := registry[name]; dup {
		panic("measure: probe registered twice: " + name)
	}
	registry[name] = newProbe
}

// Names lists the registered probes, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a new instance of the named probe, made with env.
func New(name string, env Env) (Probe, error) {
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown probe %q (probes: %v)", name, Names())
	}
	return f(env), nil
}

// SocketOptions are the settings applied to every socket of the network
// probes (buffer sizes; TCP_NODELAY is always on).
type SocketOptions = rawsock.Options

// ErrTimeout is returned (wrapped) when a peer does not answer within the
// configured timeout.
var ErrTimeout = rawsock.ErrTimeout

// ErrBusy is returned (wrapped) when a server has no session slot or buffer
// memory free for a request (its welcome says busy).
var ErrBusy = errors.New("server busy")

// InventoryReporter is implemented by probes that also find out what
// hardware is there (devices, links, topology). After Run, Inventory
// returns a JSON-able value for the manifest, next to the probe's status.
// The runner may ignore it; nothing in the results depends on it.
type InventoryReporter interface {
	Inventory() any
}
