package main

import (
	"context"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpupath/gpupath/internal/fstree"
	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/doctor/nvmlsrc"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

func init() {
	commands["doctor"] = command{usage: "[--sysfs ROOT] [--proc ROOT] [--boot DIR] [--nvml auto|on|off|FILE] [--preset NAME | --scenario FILE] [--set k=v]... [--fail-on error|warn] [--format table|json]",
		summary: "read the machine facts that decide the GPU path, and price each with the model", run: runDoctor, reads: true}
}

// runDoctor is `gpupath doctor`. It exits 0 whatever it finds (the
// findings are the output) unless --fail-on says which findings fail it
// (exit 1), 2 on bad input.
func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := newFlagSet("doctor", stdout)
	var sf scenarioFlags
	sf.register(fl)
	sysRoot := fl.String("sysfs", "/sys", "sysfs root `dir` (a copy of another host's, or a fixture tree)")
	procRoot := fl.String("proc", "/proc", "procfs root `dir`")
	fl.AllowEmpty("boot")
	bootRoot := fl.String("boot", "/boot", "`dir` holding config-<release> (the kernel config when /proc/config.gz is absent); \"\" skips it")
	format := fl.Format(cli.Table, cli.JSON)
	failOn := fl.String("fail-on", "", "exit 1 when a finding is at this severity or worse: error, or warn (warn and error); default: exit 0 whatever is found")
	nvmlMode := fl.String("nvml", "auto", "GPU facts: auto (NVML when --sysfs is /sys), on, off, or a JSON `file` of GPU facts (the nvml probe's inventory)")
	save := fl.String("save-tree", "", "also write every file doctor read into this archive `file` (a fixture of this host: internal/fstree format; an existing file only with --force)")
	force := fl.Bool("force", false, "let --save-tree replace an existing file")
	if err := parseFlags(fl, args, false); err != nil {
		return err
	}
	if *save != "" {
		if err := checkOutFile("--save-tree", *save, *force); err != nil {
			return err
		}
	}
	if *failOn != "" && *failOn != string(doctor.Error) && *failOn != string(doctor.Warn) {
		return usagef("--fail-on %q: want error or warn", *failOn)
	}
	for _, r := range []struct{ flag, dir string }{{"--sysfs", *sysRoot}, {"--proc", *procRoot}, {"--boot", *bootRoot}} {
		if r.dir == "" && r.flag != "--boot" {
			return usagef("%s: give a directory", r.flag)
		}
		if r.dir == "" {
			continue
		}
		fi, err := os.Stat(r.dir)
		if err != nil && r.flag == "--boot" && *bootRoot == "/boot" {
			*bootRoot = "" // no /boot here: nothing to read
			continue
		}
		if err != nil || !fi.IsDir() {
			return usagef("%s %s: not a directory", r.flag, r.dir)
		}
	}
	scen, err := sf.resolve(ctx)
	if err != nil {
		return err
	}
	gpu, err := gpuSource(*nvmlMode, *sysRoot)
	if err != nil {
		return err
	}
	trees := doctor.Open(*sysRoot, *procRoot, *bootRoot)
	defer trees.Close()
	pricer := doctor.NewPricer(scen, sf.describe())
	pricer.Fix(sf.sets...) // what --set says stands over this host's facts
	opts := doctor.Options{Sys: trees.Sys, Proc: trees.Proc, Boot: trees.Boot, Roots: trees.Roots, GPU: gpu, Pricer: pricer}
	var recs []*fstree.Recorder
	if *save != "" {
		wrap := func(f fs.FS) fs.FS {
			if f == nil {
				recs = append(recs, nil)
				return nil
			}
			r := &fstree.Recorder{FS: f, Limit: doctor.MaxFileBytes}
			recs = append(recs, r)
			return r
		}
		opts.Sys, opts.Proc, opts.Boot = wrap(opts.Sys), wrap(opts.Proc), wrap(opts.Boot)
		opts.GPU = &savingSource{src: gpu}
	}
	rep := doctor.Run(opts)
	if *format == cli.JSON {
		err = doctor.WriteJSON(stdout, rep)
	} else {
		err = doctor.WriteText(stdout, rep)
	}
	if err != nil {
		return err
	}
	if *save != "" {
		if err := saveTree(*save, *force, recs, opts.GPU.(*savingSource), rep); err != nil {
			return err
		}
	}
	if *failOn != "" {
		return rep.FailOn(doctor.Severity(*failOn))
	}
	return nil
}

// describe says which scenario the flags chose, for the report.
func (f *scenarioFlags) describe() string {
	s := "preset default"
	switch {
	case f.file != "":
		s = "file " + filepath.Base(f.file)
	case f.preset != "":
		s = "preset " + f.preset
	}
	for _, kv := range f.sets {
		s += " --set " + kv
	}
	return s
}

// gpuSource picks where the GPU facts come from.
func gpuSource(mode, sysRoot string) (doctor.GPUSource, error) {
	switch mode {
	case "on":
		return nvmlsrc.New(), nil
	case "off":
		return doctor.NoGPUSource{Why: "--nvml off"}, nil
	case "auto", "":
		if filepath.Clean(sysRoot) == "/sys" {
			return nvmlsrc.New(), nil
		}
		return doctor.NoGPUSource{Why: "--sysfs is not /sys, and NVML would describe this host, not that tree (--nvml on to use it anyway, or --nvml FILE)"}, nil
	}
	fi, err := os.Stat(mode)
	if err != nil || fi.IsDir() {
		return nil, usagef("--nvml %q: use auto, on, off, or a JSON file of GPU facts", mode)
	}
	if !fi.Mode().IsRegular() || fi.Size() > doctor.MaxFileBytes {
		// Up front: a FIFO, a device or a file over the limit is bad input.
		return nil, usagef("--nvml %s: a regular file of at most %s is needed", mode, units.Bytes(doctor.MaxFileBytes).Human())
	}
	// A file given is input, and must be GPU facts (a damaged nvml.json
	// inside a tree is data being diagnosed: a finding).
	src := doctor.FileGPUSource{FS: os.DirFS(filepath.Dir(mode)), Name: filepath.Base(mode)}
	if _, err := src.GPUInventory(); err != nil {
		return nil, usagef("--nvml %s: %v", mode, err)
	}
	return src, nil
}

// savingSource remembers the GPU inventory it passed on, for --save-tree.
type savingSource struct {
	src   doctor.GPUSource
	facts *record.GPUInventory
	err   error
}

func (s *savingSource) GPUInventory() (*record.GPUInventory, error) {
	s.facts, s.err = s.src.GPUInventory()
	return s.facts, s.err
}

// saveTree writes what doctor read as one archive: sys/, proc/, boot/ and,
// when NVML answered, nvml.json.
func saveTree(name string, force bool, recs []*fstree.Recorder, gpu *savingSource, rep *doctor.Report) error {
	header := []string{
		"gpupath doctor --save-tree: every file, directory and link doctor read on this host",
		fmt.Sprintf("roots: sysfs %s, procfs %s, boot %s", rep.Roots.Sys, rep.Roots.Proc, rep.Roots.Boot),
		"unpack with internal/fstree; pass sys/, proc/, boot/ as --sysfs, --proc, --boot and nvml.json as --nvml",
	}
	var all []fstree.Entry
	for i, prefix := range []string{"sys", "proc", "boot"} {
		if recs[i] == nil {
			continue
		}
		all = append(all, fstree.Prefix(prefix, recs[i].Entries())...)
		for _, f := range recs[i].Failures() {
			header = append(header, "could not read /"+prefix+"/"+strings.ReplaceAll(f, "\n", " "))
		}
	}
	if gpu.facts != nil {
		var b strings.Builder
		if err := doctor.WriteGPUInventory(&b, gpu.facts); err != nil {
			return err
		}
		all = append(all, fstree.Entry{Kind: 'f', Path: "nvml.json", Data: b.String()})
	} else if gpu.err != nil {
		header = append(header, "no GPU facts: "+gpu.err.Error())
	}
	fstree.Sort(all)
	// Through the one writer: a temporary file renamed into place, so a
	// failed write (a full disk) leaves what was at name before.
	err := safeio.WriteWith(name, force, func(w io.Writer) error { return fstree.Write(w, header, all) })
	return outFileError("--save-tree", err)
}
