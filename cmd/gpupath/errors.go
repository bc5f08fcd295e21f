package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
)

// Version is the tool version written into every report and manifest.
var Version = "0.1.0-dev"

// usageError marks bad input: the command exits 2 with one line.
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// usagef returns a bad-input error.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// badInput wraps err as bad input (exit 2); nil stays nil.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	var u *usageError
	if errors.As(err, &u) {
		return err
	}
	return &usageError{err}
}

// errHelp is returned when -h was asked for: the usage was printed, exit 0.
var errHelp = flag.ErrHelp

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to w only when -h is given. (The flag package calls
// Usage on every parse error and again for -h; it is a no-op here, and
// parseFlags prints the usage once, for -h only.)
func newFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gpupath "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	usageMu.Lock()
	usageOf[fs] = func() {
		fs.SetOutput(w)
		fmt.Fprintf(w, "usage: gpupath %s [flags]\n", name)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	usageMu.Unlock()
	return fs
}

var (
	usageMu sync.Mutex
	usageOf = map[*flag.FlagSet]func(){}
)

// parseFlags parses args; -h prints the usage and yields errHelp, any other
// flag error is bad input. Positional arguments are refused unless allowed.
func parseFlags(fs *flag.FlagSet, args []string, allowArgs bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usageMu.Lock()
			u := usageOf[fs]
			usageMu.Unlock()
			if u != nil {
				u()
			}
			return errHelp
		}
		return usagef("%v", err)
	}
	if !allowArgs && fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
