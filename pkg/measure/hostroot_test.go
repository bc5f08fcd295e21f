package measure

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadHost and the cache size memcpy reads do not follow a link out of
// their root: a file linked to a secret outside the tree is not read.
func TestReadHostStaysInRoot(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "shadow")
	if err := os.WriteFile(secret, []byte("SECRETHASH\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	for _, d := range []string{"proc/sys/kernel", "etc", "sys/devices/system/cpu/cpu0/cache/index0", "sys/class/net/eth0"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"proc/sys/kernel/osrelease":                     secret,
		"etc/os-release":                                "../../shadow",
		"sys/devices/system/cpu/cpu0/cache/index0/size": secret,
		"sys/class/net/eth0/address":                    secret,
	} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	h := ReadHost(root)
	if s := fmt.Sprintf("%+v", h); strings.Contains(s, "SECRETHASH") {
		t.Fatalf("ReadHost read through a link out of its root: %s", s)
	}
	if len(h.NICs) != 1 || h.NICs[0].Name != "eth0" {
		t.Errorf("NICs %+v", h.NICs)
	}
	if err := os.WriteFile(secret, []byte("32768K\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := readLLC(filepath.Join(root, "sys"), "devices/system/cpu/cpu0/cache"); n != 0 {
		t.Errorf("cache size %d read through a link out of the sysfs root", n)
	}
}
