package measure

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vishvananda/netns"

	"github.com/gpupath/gpupath/internal/testnet"
)

// A veth run first removes the namespaces that a run killed with SIGKILL
// left behind: here one named for a pid that has exited.
func TestVethCleansUpKilledRuns(t *testing.T) {
	if err := VethAvailable(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	// A pid that no longer runs.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s%d-dead00-a", testnet.Prefix, cmd.Process.Pid)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // the thread ends in the new namespace: not unlocked, it dies with the goroutine
		h, err := netns.NewNamed(name)
		if err == nil {
			h.Close()
		}
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testnet.NetnsDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("left-behind namespace not made: %v", err)
	}
	t.Cleanup(func() { netns.DeleteNamed(name) })
	v, err := NewVeth(context.Background(), VethConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s of a killed run is still there after a veth run started", name)
	}
	if _, err := os.Stat(filepath.Join(testnet.NetnsDir, v.ClientNs)); err != nil {
		t.Errorf("the new pair's namespace %s: %v", v.ClientNs, err)
	}
}
