package nbcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Executor runs notebooks headless with jupyter nbconvert.
type Executor struct {
	// Python is the interpreter that has nbconvert ("python3" when empty).
	Python string
	// OutDir receives NAME.ipynb (executed), NAME.html and NAME.log (the
	// kernel's log) for each notebook NAME.
	OutDir string
	// CellTimeout bounds one cell (nbconvert's ExecutePreprocessor.timeout).
	CellTimeout time.Duration
	// Env is added to the environment of nbconvert and the kernel
	// (JUPYTER_DATA_DIR, PATH with gonb and goimports).
	Env []string
}

// Run is one executed notebook.
type Run struct {
	Notebook string // the source notebook
	Executed string // the executed copy, with its outputs
	HTML     string // the executed copy as HTML
	Log      string // nbconvert's and the kernel's log
	Elapsed  time.Duration
	// CPU is the user and system time of nbconvert and everything it ran
	// (the kernel, the Go compiler, the cells): unlike Elapsed, it does
	// not grow when other work shares the machine.
	CPU time.Duration
}

// Execute runs the notebook at path and writes the executed notebook and its
// HTML into e.OutDir. Cell failures do not make it fail (nbconvert runs with
// --allow-errors so that every cell runs and the result can be checked);
// an error means nbconvert itself failed, and the log says why.
func (e Executor) Execute(ctx context.Context, path string) (Run, error) {
	name := strings.TrimSuffix(filepath.Base(path), ".ipynb")
	run := Run{Notebook: path,
		Executed: filepath.Join(e.OutDir, name+".ipynb"),
		HTML:     filepath.Join(e.OutDir, name+".html"),
		Log:      filepath.Join(e.OutDir, name+".log")}
	src, err1 := filepath.Abs(path)
	dst, err2 := filepath.Abs(run.Executed)
	if err := errors.Join(err1, err2); err != nil {
		return run, err
	}
	if src == dst {
		return run, fmt.Errorf("%s: the output directory holds the notebook itself; executing would overwrite it", path)
	}
	if err := os.MkdirAll(e.OutDir, 0o755); err != nil {
		return run, err
	}
	python := e.Python
	if python == "" {
		python = "python3"
	}
	timeout := e.CellTimeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	var log bytes.Buffer
	start := time.Now()
	err := e.nbconvert(ctx, python, &log, &run.CPU, "--to", "notebook", "--execute", "--allow-errors",
		"--ExecutePreprocessor.timeout="+strconv.Itoa(int(timeout.Seconds())),
		"--output-dir", e.OutDir, "--output", name, path)
	if err == nil {
		err = e.nbconvert(ctx, python, &log, &run.CPU, "--to", "html", "--output-dir", e.OutDir, "--output", name, run.Executed)
	}
	run.Elapsed = time.Since(start)
	if werr := os.WriteFile(run.Log, log.Bytes(), 0o644); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return run, fmt.Errorf("%s: nbconvert: %w (log: %s)", path, err, run.Log)
	}
	return run, nil
}

func (e Executor) nbconvert(ctx context.Context, python string, log *bytes.Buffer, cpu *time.Duration, args ...string) error {
	cmd := exec.CommandContext(ctx, python, append([]string{"-m", "nbconvert"}, args...)...)
	cmd.Env = append(os.Environ(), e.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	fmt.Fprintf(log, "$ %s\n", strings.Join(cmd.Args, " "))
	err := cmd.Run()
	if ps := cmd.ProcessState; ps != nil {
		*cpu += ps.UserTime() + ps.SystemTime()
	}
	return err
}
