package measure

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/record"
)

// ReadHost reads the host description under root ("" or "/" for this
// machine; a directory of fixtures in tests). It never fails: what cannot be
// read is left empty and noted.
func ReadHost(root string) record.Host {
	if root == "" {
		root = "/"
	}
	h := record.Host{Arch: runtime.GOARCH, GoVersion: runtime.Version()}
	tree := openTree(root)
	defer tree.close()
	read := func(p string) (string, bool) {
		b, err := tree.read(p)
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	note := func(s string) { h.Notes = append(h.Notes, s) }
	if s, ok := read("proc/sys/kernel/hostname"); ok {
		h.Hostname = strings.TrimSpace(s)
	} else if root == "/" {
		h.Hostname, _ = os.Hostname()
	}
	if s, ok := read("proc/sys/kernel/osrelease"); ok {
		h.Kernel = strings.TrimSpace(s)
	} else {
		note("kernel release unknown (no /proc/sys/kernel/osrelease)")
	}
	if s, ok := read("proc/sys/kernel/version"); ok {
		h.KernelVersion = strings.TrimSpace(s)
	}
	if s, ok := read("etc/os-release"); ok {
		h.OS = parseOSRelease(s)
	}
	if s, ok := read("proc/cpuinfo"); ok {
		h.CPUModel, h.CPUs = parseCPUInfo(s)
	} else {
		note("CPU unknown (no /proc/cpuinfo)")
	}
	if h.CPUs == 0 && root == "/" {
		h.CPUs = runtime.NumCPU()
	}
	if s, ok := read("proc/meminfo"); ok {
		h.MemoryBytes = parseMeminfo(s)
	}
	h.LLCBytes = tree.llc("sys/devices/system/cpu/cpu0/cache")
	if s, ok := read("proc/driver/nvidia/version"); ok {
		h.Driver = parseNvidiaVersion(s)
		dirs, _ := fs.Glob(tree.fsys, "proc/driver/nvidia/gpus/*/information")
		sort.Strings(dirs)
		for _, d := range dirs {
			if b, err := tree.read(d); err == nil {
				h.GPUs = append(h.GPUs, parseNvidiaInformation(string(b)))
			}
		}
	}
	nics, err := tree.nics("sys/class/net")
	if err != nil {
		note("network interfaces unknown: " + err.Error())
	}
	h.NICs = nics
	// The hostname names the run (its directory, the host scenario's name);
	// every text is read back by fit and report: one line, no control
	// character, within the manifest's limit.
	h.Clean()
	return h
}

// parseCPUInfo returns the model name and the number of processors listed
// in /proc/cpuinfo text.
func parseCPUInfo(s string) (model string, n int) {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			n++
		case "model name", "Model Name": // x86, some arm64
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	return model, n
}

// parseMeminfo returns MemTotal in bytes from /proc/meminfo text (0 if absent).
func parseMeminfo(s string) int64 {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || v < 0 {
				return 0
			}
			if len(f) >= 3 && strings.EqualFold(f[2], "kB") {
				v *= 1024 // /proc/meminfo's "kB" is KiB
			}
			return v
		}
	}
	return 0
}

// parseOSRelease returns PRETTY_NAME from os-release text.
func parseOSRelease(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// parseNvidiaVersion returns the driver version from
// /proc/driver/nvidia/version: the first dotted number of its first line
// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ...", or
// "... Open Kernel Module for x86_64  570.86.15  Release Build ...").
func parseNvidiaVersion(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	for _, w := range strings.Fields(line) {
		if isDottedNumber(w) {
			return w
		}
	}
	return ""
}

func isDottedNumber(w string) bool {
	dots := 0
	for i, r := range w {
		switch {
		case r == '.' && i > 0 && i < len(w)-1:
			dots++
		case r < '0' || r > '9':
			return false
		}
	}
	return dots > 0
}

// parseNvidiaInformation reads /proc/driver/nvidia/gpus/*/information.
func parseNvidiaInformation(s string) record.GPU {
	var g record.GPU
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Model":
			g.Model = strings.TrimSpace(v)
		case "Bus Location":
			g.BusID = strings.TrimSpace(v)
		}
	}
	return g
}

// maxHostFile bounds one file of the host description (/proc/cpuinfo of a
// large machine is well under it).
const maxHostFile = 4 << 20

// hostTree reads a host's files under one directory through os.Root: a
// symbolic link is followed only while it stays inside (sysfs's links are
// relative and stay in /sys), so a tree whose attributes link out of it
// (to /etc/shadow, say) reads them as errors, never as the file linked to;
// each file is read by the bounded reader (a FIFO or a device refused).
// It is the mechanism doctor reads its trees with.
type hostTree struct {
	root *os.Root
	fsys fs.FS
}

// openTree opens dir; one that cannot be opened reads as empty.
func openTree(dir string) hostTree {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return hostTree{fsys: noTree{err}}
	}
	return hostTree{root: r, fsys: r.FS()}
}

// noTree is a directory that could not be opened: every read fails.
type noTree struct{ err error }

func (n noTree) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: n.err}
}

func (t hostTree) close() {
	if t.root != nil {
		t.root.Close()
	}
}

func (t hostTree) read(name string) ([]byte, error) {
	return safeio.ReadFSFile(t.fsys, name, maxHostFile)
}

// readLLC returns the largest cache size in bytes of the cpu0 cache
// directory dir under the sysfs root sys (0 if unknown).
func readLLC(sys, dir string) int64 {
	t := openTree(sys)
	defer t.close()
	return t.llc(dir)
}

// llc returns the largest cache size under a cpu's cache directory.
func (t hostTree) llc(dir string) int64 {
	idx, _ := fs.Glob(t.fsys, path.Join(dir, "index*", "size"))
	var best int64
	for _, p := range idx {
		b, err := t.read(p)
		if err != nil {
			continue
		}
		if v := parseCacheSize(string(b)); v > best {
			best = v
		}
	}
	return best
}

// parseCacheSize reads sysfs cache sizes like "32768K" (K = KiB) or "1M".
func parseCacheSize(s string) int64 {
	s = strings.TrimSpace(s)
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v * mult
}

// nics lists the interfaces under a /sys/class/net directory.
func (t hostTree) nics(dir string) ([]record.NIC, error) {
	ents, err := fs.ReadDir(t.fsys, dir)
	if err != nil {
		return nil, err
	}
	var nics []record.NIC
	for _, e := range ents {
		p := path.Join(dir, e.Name())
		rd := func(f string) string {
			b, err := t.read(path.Join(p, f))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(b))
		}
		n := record.NIC{Name: e.Name(), MAC: rd("address"), State: rd("operstate")}
		n.MTU, _ = strconv.Atoi(rd("mtu"))
		if sp, err := strconv.Atoi(rd("speed")); err == nil && sp > 0 {
			n.SpeedMbps = sp
		}
		if _, err := fs.Stat(t.fsys, path.Join(p, "device")); err != nil {
			n.Virtual = true
		} else if drv, err := fs.ReadLink(t.fsys, path.Join(p, "device", "driver")); err == nil {
			n.Driver = path.Base(drv)
		}
		nics = append(nics, n)
	}
	return nics, nil
}
