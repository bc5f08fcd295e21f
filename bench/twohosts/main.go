// Command twohosts makes two test hosts — network namespaces joined by a
// veth pair, shaped with tbf (internal/testnet) — and runs a real
// two-rank `gpupath measure` across them the way torchrun would launch it
// (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT in each rank's environment):
// rank 0 in host A serves, rank 1 in host B measures the tcp probe and the
// host-memory staged transfer and writes one run directory holding both
// hosts. It needs root; traffic stays inside the two namespaces it makes.
//
//	go build -o .build/gpupath ./cmd/gpupath
//	go run ./bench/twohosts -gpupath .build/gpupath -rate 1Gbit/s -out reports/examples/two-hosts-veth/run
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/gpupath/gpupath/internal/testnet"
	"github.com/gpupath/gpupath/pkg/units"
)

func main() {
	bin := flag.String("gpupath", ".build/gpupath", "the gpupath binary")
	rate := flag.String("rate", "1Gbit/s", "tbf rate of the link, both directions (0: unshaped)")
	out := flag.String("out", "", "the run directory rank 1 writes (must not exist)")
	budget := flag.String("budget", "20s", "rank 1's measurement budget")
	flag.Parse()
	if err := run(*bin, *rate, *out, *budget); err != nil {
		fmt.Fprintln(os.Stderr, "twohosts:", err)
		os.Exit(1)
	}
}

func run(bin, rateS, out, budget string) error {
	if out == "" {
		return fmt.Errorf("give -out DIR")
	}
	r, err := units.ParseRate(rateS)
	if err != nil {
		return err
	}
	if removed, err := testnet.Cleanup(); err != nil {
		return err
	} else if len(removed) > 0 {
		fmt.Println("removed namespaces left by killed runs:", removed)
	}
	p, err := testnet.New(context.Background(), testnet.Config{Rate: float64(r), Both: r > 0, MTU: 1500})
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Printf("host A %s (%s), host B %s (%s), %s\n", p.A.Name, p.A.Addr, p.B.Name, p.B.Addr, p.Qdisc)
	env := func(rank int) []string {
		return append(os.Environ(), fmt.Sprintf("RANK=%d", rank), "WORLD_SIZE=2", "LOCAL_RANK=0",
			"MASTER_ADDR="+p.A.Addr, "MASTER_PORT=29500", "TORCHELASTIC_RUN_ID=twohosts")
	}
	var e0, e1 bytes.Buffer
	r0 := exec.Command(bin, "measure", "--peer-wait", "30s", "--quiet")
	r0.Env, r0.Stderr, r0.Stdout = env(0), &e0, os.Stdout
	if err := p.A.Start(r0); err != nil {
		return err
	}
	r1 := exec.Command(bin, "measure", "--out", out, "--budget", budget, "--peer-wait", "30s",
		"--sizes", "1,64,1KiB,16KiB,128KiB,1MiB,4MiB,16MiB", "--opt", "flows=2", "--opt", "chunk=1MiB")
	r1.Env, r1.Stderr, r1.Stdout = env(1), &e1, os.Stdout
	if err := p.B.Start(r1); err != nil {
		r0.Process.Kill()
		return err
	}
	done := make(chan error, 1)
	go func() { done <- r1.Wait() }()
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		r1.Process.Kill()
		err = fmt.Errorf("rank 1 ran past 5 minutes")
	}
	err0 := r0.Wait()
	if err != nil || err0 != nil {
		return fmt.Errorf("rank 1: %v %s; rank 0: %v %s", err, e1.String(), err0, e0.String())
	}
	fmt.Println("wrote", out)
	return nil
}
