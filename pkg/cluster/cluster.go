// Package cluster tells a gpupath process its place in a two-host run the
// way a cluster user launches anything: its rank, the world size and its
// local rank come from flags, else from the launcher's environment (Open MPI,
// PMIx, MPICH / Intel MPI, Slurm, torchrun), and rank 1 finds rank 0 at an
// explicit address, at torchrun's MASTER_ADDR, or through a rendezvous file
// in a directory both hosts share. The cluster's launcher is the distributed
// engine: this package runs nothing, starts nothing and has no cluster
// manager of its own. It does no network I/O but for the rendezvous file.
package cluster

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Launcher names the convention a Rank was read from.
type Launcher string

// The conventions, in the order FromEnv tries them.
const (
	Flags   Launcher = "flags"
	Torch   Launcher = "torchrun"
	OpenMPI Launcher = "openmpi"
	PMIx    Launcher = "pmix"
	MPICH   Launcher = "mpich"
	Slurm   Launcher = "slurm"
	Single  Launcher = "single" // no launcher: one process, rank 0 of 1
)

// Order is the documented order in which FromEnv looks at the launchers.
// The launchers that start the ranks themselves come before Slurm, since
// mpirun or torchrun inside an sbatch allocation inherits the batch step's
// SLURM_* variables (SLURM_PROCID=0 in every rank) while its own are the
// ranks' real ones. torchrun comes first: it is started by one of the
// others (srun torchrun …) and its RANK counts its workers.
var Order = []Launcher{Torch, OpenMPI, PMIx, MPICH, Slurm}

// Rank is one process's place in the run.
type Rank struct {
	Rank, Size, LocalRank int
	// From is the convention the numbers came from.
	From Launcher
	// Master is torchrun's MASTER_ADDR:MASTER_PORT when set.
	Master string
	// Job names the job and step for a rendezvous file (SLURM_JOB_ID.
	// SLURM_STEP_ID, PMIX_NAMESPACE, OMPI's jobid, TORCHELASTIC_RUN_ID),
	// empty when the launcher names none.
	Job string
}

// Role is what a rank does in a pair.
type Role int

// Server is rank 0 (it serves); Client is rank 1 (it measures).
const (
	Server Role = iota
	Client
)

func (r Role) String() string {
	if r == Server {
		return "server"
	}
	return "client"
}

// Role says what this rank does. A world of one has no peer (Client with
// an explicit peer address is the caller's business); worlds larger than
// two are an error: gpupath pairs exactly two hosts.
func (r Rank) Role() (Role, error) {
	switch {
	case r.Size == 2 && r.Rank == 0:
		return Server, nil
	case r.Size == 2 && r.Rank == 1:
		return Client, nil
	case r.Size == 1:
		return Client, nil
	default:
		return 0, fmt.Errorf("cluster: world size %d (%s): gpupath pairs two ranks, one per host; launch 2 tasks (e.g. srun -N2 --ntasks-per-node=1)", r.Size, r.From)
	}
}

// Getenv reads one variable ("" when unset), like os.Getenv.
type Getenv func(string) string

// FromEnv reads the rank from the first launcher in Order whose variables
// are set, or returns rank 0 of 1 when none is. A launcher whose variables
// are set but malformed or out of range is an error naming the variable.
func FromEnv(getenv Getenv) (Rank, error) {
	for _, l := range Order {
		r, ok, err := read(l, getenv)
		if err != nil {
			return Rank{}, err
		}
		if ok {
			return r, nil
		}
	}
	return Rank{Rank: 0, Size: 1, From: Single}, nil
}

// vars lists, per launcher, the rank, size and local-rank variables.
var vars = map[Launcher][3]string{
	Torch:   {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
	OpenMPI: {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
	// PMIx itself exports no world size; Open MPI 5 (PRRTE) adds
	// OMPI_COMM_WORLD_SIZE, read as a fallback; otherwise --world-size.
	PMIx:  {"PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK"},
	MPICH: {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
	Slurm: {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
}

func read(l Launcher, getenv Getenv) (Rank, bool, error) {
	v := vars[l]
	rs := getenv(v[0])
	if rs == "" {
		return Rank{}, false, nil
	}
	r := Rank{From: l, LocalRank: -1}
	var err error
	if r.Rank, err = atoi(v[0], rs, 0); err != nil {
		return Rank{}, false, err
	}
	size := getenv(v[1])
	if size == "" && l == PMIx {
		size = getenv("OMPI_COMM_WORLD_SIZE")
	}
	if size == "" {
		return Rank{}, false, fmt.Errorf("cluster: %s is set but %s is not: give --world-size", v[0], v[1])
	}
	if r.Size, err = atoi(v[1], size, 1); err != nil {
		return Rank{}, false, err
	}
	if r.Rank >= r.Size {
		return Rank{}, false, fmt.Errorf("cluster: %s=%d is not below %s=%d", v[0], r.Rank, v[1], r.Size)
	}
	if ls := getenv(v[2]); ls != "" {
		if r.LocalRank, err = atoi(v[2], ls, 0); err != nil {
			return Rank{}, false, err
		}
	} else if l == MPICH {
		if ls := getenv("PMI_LOCAL_RANK"); ls != "" {
			if r.LocalRank, err = atoi("PMI_LOCAL_RANK", ls, 0); err != nil {
				return Rank{}, false, err
			}
		}
	}
	if r.LocalRank < 0 {
		r.LocalRank = 0 // one rank per host, the layout gpupath asks for
	}
	if l == Torch {
		if a, p := getenv("MASTER_ADDR"), getenv("MASTER_PORT"); a != "" && p != "" {
			if _, err := atoi("MASTER_PORT", p, 1); err != nil {
				return Rank{}, false, err
			}
			r.Master = net.JoinHostPort(a, p)
		}
	}
	r.Job = jobID(getenv)
	return r, true, nil
}

func atoi(name, s string, min int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < min || n > 1<<20 {
		return 0, fmt.Errorf("cluster: %s=%q is not a whole number ≥ %d", name, s, min)
	}
	return n, nil
}

// jobID names the job (and step) for the rendezvous file.
func jobID(getenv Getenv) string {
	if j := getenv("SLURM_JOB_ID"); j != "" {
		if s := getenv("SLURM_STEP_ID"); s != "" {
			return j + "." + s
		}
		return j
	}
	for _, k := range []string{"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "TORCHELASTIC_RUN_ID", "PMI_JOBID"} {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// Override applies explicit flags over what the environment said: a flag
// value of -1 means "not given".
func (r Rank) Override(rank, size, local int) (Rank, error) {
	if rank < 0 && size < 0 && local < 0 {
		return r, nil
	}
	if rank >= 0 {
		r.Rank = rank
		r.From = Flags
	}
	if size >= 0 {
		r.Size = size
		r.From = Flags
	}
	if local >= 0 {
		r.LocalRank = local
	}
	if r.Size < 1 || r.Rank < 0 || r.Rank >= r.Size {
		return Rank{}, fmt.Errorf("cluster: --rank %d is not below --world-size %d", r.Rank, r.Size)
	}
	return r, nil
}

// ErrNoPeer says rank 1 has no way to find rank 0.
var ErrNoPeer = errors.New("cluster: no peer address: give --peer host:port, run under torchrun (MASTER_ADDR), or give --rendezvous DIR on a directory both hosts share")

// PortOffset is added to torchrun's MASTER_PORT: torchrun's own store
// listens on MASTER_PORT itself.
const PortOffset = 1

// MasterPeer is rank 0's address under torchrun: MASTER_ADDR and
// MASTER_PORT + PortOffset.
func (r Rank) MasterPeer() (string, bool) {
	if r.Master == "" {
		return "", false
	}
	h, p, err := net.SplitHostPort(r.Master)
	if err != nil {
		return "", false
	}
	n, err := strconv.Atoi(p)
	if err != nil || n+PortOffset > 65535 {
		return "", false
	}
	return net.JoinHostPort(h, strconv.Itoa(n+PortOffset)), true
}
