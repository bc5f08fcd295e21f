package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func env(kv ...string) Getenv {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		name string
		env  Getenv
		want Rank
	}{
		{"none", env(), Rank{Rank: 0, Size: 1, From: Single}},
		{"openmpi", env("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "OMPI_COMM_WORLD_LOCAL_RANK", "0", "OMPI_MCA_ess_base_jobid", "42"),
			Rank{Rank: 1, Size: 2, LocalRank: 0, From: OpenMPI, Job: "42"}},
		{"pmix with ompi size", env("PMIX_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2", "PMIX_NAMESPACE", "prterun-x-1@1"),
			Rank{Rank: 1, Size: 2, From: PMIx, Job: "prterun-x-1@1"}},
		{"mpich", env("PMI_RANK", "0", "PMI_SIZE", "2", "PMI_LOCAL_RANK", "0"), Rank{Rank: 0, Size: 2, From: MPICH}},
		{"intel mpi", env("PMI_RANK", "1", "PMI_SIZE", "2", "MPI_LOCALRANKID", "3"), Rank{Rank: 1, Size: 2, LocalRank: 3, From: MPICH}},
		{"slurm", env("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_LOCALID", "0", "SLURM_JOB_ID", "777", "SLURM_STEP_ID", "3"),
			Rank{Rank: 1, Size: 2, From: Slurm, Job: "777.3"}},
		{"torchrun", env("RANK", "1", "WORLD_SIZE", "2", "LOCAL_RANK", "1", "MASTER_ADDR", "node1", "MASTER_PORT", "29500", "TORCHELASTIC_RUN_ID", "r1"),
			Rank{Rank: 1, Size: 2, LocalRank: 1, From: Torch, Master: "node1:29500", Job: "r1"}},
		// mpirun inside an sbatch: the batch step's SLURM_PROCID is 0 in
		// every rank; Open MPI's own variables win.
		{"mpirun under slurm", env("SLURM_PROCID", "0", "SLURM_NTASKS", "1", "SLURM_JOB_ID", "9",
			"OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "2"),
			Rank{Rank: 1, Size: 2, From: OpenMPI, Job: "9"}},
		// srun torchrun: torchrun's RANK counts its workers.
		{"torchrun under srun", env("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "RANK", "1", "WORLD_SIZE", "2"),
			Rank{Rank: 1, Size: 2, From: Torch}},
	} {
		got, err := FromEnv(c.env)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestFromEnvErrors(t *testing.T) {
	for _, c := range []struct {
		env  Getenv
		want string
	}{
		{env("OMPI_COMM_WORLD_RANK", "x", "OMPI_COMM_WORLD_SIZE", "2"), "OMPI_COMM_WORLD_RANK"},
		{env("OMPI_COMM_WORLD_RANK", "2", "OMPI_COMM_WORLD_SIZE", "2"), "not below"},
		{env("PMIX_RANK", "1"), "--world-size"},
		{env("SLURM_PROCID", "0", "SLURM_NTASKS", "0"), "SLURM_NTASKS"},
		{env("RANK", "0", "WORLD_SIZE", "2", "MASTER_ADDR", "a", "MASTER_PORT", "http"), "MASTER_PORT"},
	} {
		_, err := FromEnv(c.env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one naming %q", err, c.want)
		}
	}
}

func TestRole(t *testing.T) {
	for _, c := range []struct {
		r    Rank
		want Role
		err  bool
	}{
		{Rank{Rank: 0, Size: 2}, Server, false},
		{Rank{Rank: 1, Size: 2}, Client, false},
		{Rank{Rank: 0, Size: 1}, Client, false},
		{Rank{Rank: 2, Size: 4}, 0, true},
	} {
		got, err := c.r.Role()
		if (err != nil) != c.err || (!c.err && got != c.want) {
			t.Errorf("%+v: %v, %v", c.r, got, err)
		}
	}
}

func TestOverride(t *testing.T) {
	r, err := Rank{Rank: 0, Size: 1, From: Single}.Override(1, 2, -1)
	if err != nil || r.Rank != 1 || r.Size != 2 || r.From != Flags {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := (Rank{Size: 1}).Override(3, -1, -1); err == nil {
		t.Error("rank 3 of 1 accepted")
	}
}

func TestMasterPeer(t *testing.T) {
	a, ok := Rank{Master: "10.0.0.1:29500"}.MasterPeer()
	if !ok || a != "10.0.0.1:29501" {
		t.Errorf("%q %v", a, ok)
	}
	if _, ok := (Rank{Master: "h:65535"}).MasterPeer(); ok {
		t.Error("port 65536 accepted")
	}
}

func TestRendezvous(t *testing.T) {
	dir := t.TempDir()
	path := RendezvousFile(dir, "777.3/../x")
	if filepath.Dir(path) != dir {
		t.Fatalf("rendezvous file %s escapes %s", path, dir)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		if err := Publish(path, "10.1.2.3:4567"); err != nil {
			t.Error(err)
		}
	}()
	addr, err := Await(context.Background(), path, 5*time.Second)
	if err != nil || addr != "10.1.2.3:4567" {
		t.Fatalf("%q %v", addr, err)
	}
	// A peer that never comes: a bounded wait and a clear error.
	start := time.Now()
	_, err = Await(context.Background(), filepath.Join(dir, "none"), 300*time.Millisecond)
	if !errors.Is(err, ErrPeerTimeout) || time.Since(start) > 3*time.Second {
		t.Errorf("%v after %s", err, time.Since(start))
	}
	// Garbage in the file.
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("not an address at all"), 0o644)
	if _, err := Await(context.Background(), bad, time.Second); err == nil || errors.Is(err, ErrPeerTimeout) {
		t.Errorf("garbage: %v", err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 4096), 0o644)
	if _, err := Await(context.Background(), big, time.Second); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("big: %v", err)
	}
	if err := Publish(path, "nonsense"); err == nil {
		t.Error("Publish accepted a non-address")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Await(ctx, filepath.Join(dir, "none"), time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func FuzzFromEnv(f *testing.F) {
	f.Add("1", "2", "0")
	f.Add("-1", "x", "")
	f.Fuzz(func(t *testing.T, rank, size, local string) {
		r, err := FromEnv(env("SLURM_PROCID", rank, "SLURM_NTASKS", size, "SLURM_LOCALID", local))
		if err == nil && (r.Rank < 0 || r.Rank >= r.Size || r.LocalRank < 0) {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// A FIFO (or a device) at the rendezvous path is refused at once, not
// waited on past the peer wait; Publish replaces a previous run's address.
func TestRendezvousRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "gpupath-pair.addr")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Await(context.Background(), fifo, 200*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, ErrPeerTimeout) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Await blocked on a FIFO past its wait")
	}
	path := filepath.Join(dir, "gpupath-x.addr")
	for _, a := range []string{"10.0.0.1:1", "10.0.0.2:2"} {
		if err := Publish(path, a); err != nil {
			t.Fatal(err)
		}
	}
	if addr, err := Await(context.Background(), path, time.Second); err != nil || addr != "10.0.0.2:2" {
		t.Errorf("republished: %q %v", addr, err)
	}
}

// A rendezvous file that is a link out of its directory (anybody who can
// write to a shared directory can plant one) is not followed, and what a
// file holds that is not an address is not echoed into the error (which
// goes into the run's manifest).
func TestRendezvousStaysInDirectory(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("TOPSECRET line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "gpupath-pair.addr")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	_, err := Await(context.Background(), link, 200*time.Millisecond)
	if err == nil || strings.Contains(err.Error(), "TOPSECRET") || errors.Is(err, ErrPeerTimeout) {
		t.Errorf("a link out of the directory: %v", err)
	}
	// A regular file that holds something else: its length, not its text.
	junk := filepath.Join(dir, "gpupath-junk.addr")
	if err := os.WriteFile(junk, []byte("TOPSECRET line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Await(context.Background(), junk, 200*time.Millisecond)
	if err == nil || strings.Contains(err.Error(), "TOPSECRET") || !strings.Contains(err.Error(), "15 bytes") {
		t.Errorf("junk: %v", err)
	}
	// A link inside the directory is followed.
	good := filepath.Join(dir, "gpupath-good.addr")
	if err := Publish(good, "10.0.0.3:3"); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(dir, "gpupath-alias.addr")
	if err := os.Symlink("gpupath-good.addr", inside); err != nil {
		t.Fatal(err)
	}
	if addr, err := Await(context.Background(), inside, time.Second); err != nil || addr != "10.0.0.3:3" {
		t.Errorf("a link inside: %q %v", addr, err)
	}
}
