package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"io"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gpupath/gpupath/pkg/measure"
)

func init() {
	commands["serve"] = command{usage: "[--listen 127.0.0.1:7470] [--for DURATION] [--format table|json]",

		summary: "be the remote peer of `gpupath measure --target host:port` (TCP probe server)",
		run:     runServe,
	}
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stdout)
	listen := fs.String("listen", "127.0.0.1:"+strconv.Itoa(measure.DefaultServePort),
		"address to listen on; anything but loopback opens the port to the network, so give it explicitly")
	timeout := fs.Duration("timeout", 5*time.Second, "deadline of a client's handshake and of every read and write")
	dur := fs.Duration("for", 0, "stop after this long (0: until interrupted)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	format := fs.Format(cli.Table, cli.JSON)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if err := measure.CheckTimeout(*timeout); err != nil {
		return usagef("%v", err)
	}
	if *dur < 0 {
		return usagef("--for must not be negative, got %v", *dur)
	}
	if err := checkAddr("--listen", *listen, true); err != nil {
		return err
	}
	// The address is what the user asked for: a non-loopback one is allowed.
	cfg := measure.ServerConfig{Addr: *listen, AllowNonLoopback: true, Timeout: *timeout,
		// One source address may hold 12 of the 16 sessions: another host
		// still gets in.
		MaxPerSource: measure.DefaultMaxSessions * 3 / 4}
	if !*quiet { // clients coming and going, on stderr (stderr escapes what they sent)
		cfg.Log = func(format string, a ...any) {
			fmt.Fprintf(stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
		}
	}
	// The buffers are bounded (measure.DefaultMaxBuffers); a freed one is
	// garbage until the collector runs, which a soft limit a little above
	// the bound makes it do in time (2.5 GB of RSS under a filling client
	// without it).
	debug.SetMemoryLimit(int64(measure.DefaultMaxBuffers) + 256<<20)
	s, err := measure.Listen(ctx, cfg)
	if err != nil {
		return badInput(err)
	}
	defer s.Close()
	if *dur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *dur)
		defer cancel()
	}
	if !*quiet {
		fmt.Fprintf(stderr, "gpupath serve: listening on %s (stop with Ctrl-C)\n", s.Addr())
	}
	start, stop := time.Now(), "--for"
	err = s.Serve(ctx)
	if errors.Is(ctx.Err(), context.Canceled) {
		stop = "a signal" // stopping a server is how it ends: exit 0
	}
	if *format == cli.JSON {
		return errors.Join(err, cli.WriteJSON(stdout, map[string]any{"listen": s.Addr(), "seconds": time.Since(start).Round(time.Millisecond).Seconds(), "stopped_by": stop}))
	} else if !*quiet && err == nil {
		fmt.Fprintf(stderr, "gpupath serve: stopped by %s after %s (any live session was ended)\n", stop, time.Since(start).Round(time.Second))
	}
	return err
}
