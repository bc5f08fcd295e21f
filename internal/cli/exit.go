package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
)

// Exit statuses, the same for every command (README, "Exit status").
const (
	ExitOK     = 0 // success, or --help
	ExitFailed = 1 // a run that failed, measured nothing, was interrupted, output that could not be written, a doctor finding at --fail-on, an input file or line import could not read
	ExitUsage  = 2 // bad input: a flag, an argument, a file that is not what it must be
)

// Exit prints err as one line on stderr ("gpupath: …", nothing from
// outside reaching the terminal raw) and returns the process's exit status.
func Exit(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, ErrHelp) {
		return ExitOK
	}
	if errors.Is(err, context.Canceled) {
		// SIGINT or SIGTERM: a command stops at its next check and writes
		// nothing or says what it kept ("interrupted: kept …") or what
		// was cut short (ErrOutputStopped); exit 1
		// however it was wrapped.
		msg, _ := strings.CutSuffix(err.Error(), ": "+context.Canceled.Error())
		if !strings.HasPrefix(msg, "interrupted: ") {
			msg = "interrupted: nothing written"
		}
		io.WriteString(stderr, errorLine(termtext.Clean(msg)))
		return ExitFailed
	}
	msg := termtext.Clean(strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "))
	io.WriteString(stderr, errorLine(msg))
	var u *UsageError
	if errors.As(err, &u) && !safeio.OutputFailed(err) {
		return ExitUsage
	}
	return ExitFailed // a full disk too, even where a command called it bad input
}

// MaxMessageBytes bounds the one line an error prints, "gpupath: " and
// the newline included: a message that quotes what it was given (a 100 kB
// name to catalog show) keeps its start and its end (the hint after the
// argument), and says how many bytes it left out between them.
const MaxMessageBytes = 1024

// errorLine is the line Exit prints for msg: "gpupath: ", msg cut so
// that the whole line is at most MaxMessageBytes (termtext.CutMiddle), a
// newline.
func errorLine(msg string) string {
	const prefix = "gpupath: "
	return prefix + termtext.CutMiddle(msg, MaxMessageBytes-len(prefix)-1) + "\n"
}

// Build is what `gpupath version` says of the binary.
type Build struct {
	Version  string `json:"version"`            // the tool's version (written into every manifest and report)
	Module   string `json:"module"`             // the main module's path and version as Go recorded it
	Commit   string `json:"commit,omitempty"`   // the VCS revision it was built from, when Go recorded one
	Time     string `json:"time,omitempty"`     // the commit's time
	Modified bool   `json:"modified"`           // the work tree had uncommitted changes
	Go       string `json:"go"`                 // the Go toolchain
	Tags     string `json:"tags,omitempty"`     // build tags (nvml: NVML linked in)
	Platform string `json:"platform,omitempty"` // GOOS/GOARCH
}

// ReadBuild reads the binary's build information (runtime/debug).
func ReadBuild(version string) Build {
	b := Build{Version: version, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Go = info.GoVersion
	b.Module = info.Main.Path + " " + info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "-tags":
			b.Tags = s.Value
		}
	}
	return b
}

// Text is the build in one line per fact.
func (b Build) Text() string {
	var s strings.Builder
	fmt.Fprintf(&s, "gpupath %s\n", b.Version)
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&s, "  %-8s %s\n", k, v)
		}
	}
	line("module", b.Module)
	commit := b.Commit
	if commit != "" && b.Modified {
		commit += " (with uncommitted changes)"
	}
	if commit == "" {
		commit = "(not recorded: built outside a git checkout or with -buildvcs=false)"
	}
	line("commit", commit)
	line("time", b.Time)
	line("go", b.Go)
	tags := b.Tags
	if tags == "" {
		tags = "(none: NVML not linked)"
	}
	line("tags", tags)
	line("platform", b.Platform)
	return s.String()
}
