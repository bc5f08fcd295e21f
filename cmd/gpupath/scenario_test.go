package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/model"
)

func TestReadScenarioBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, bytes.Repeat([]byte("# comment\n"), model.MaxScenarioBytes/10+1), 0o644)
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "not a regular file (a character device)"},
		{fifo, "not a regular file (a FIFO)"},
		{dir, "a directory"},
		{big, "over the size limit of 1 MiB"},
	} {
		done := make(chan error, 1)
		go func() { _, err := readScenario(context.Background(), tc.path); done <- err }()
		select {
		case err := <-done:
			var ie *model.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: LoadFile does not return", tc.path)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ok := filepath.Join(dir, "ok.yaml")
	os.WriteFile(ok, []byte("name: x\n"), 0o644)
	if _, err := readScenario(ctx, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestReadScenarioErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := readScenario(context.Background(), filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := readScenario(context.Background(), dir); err == nil {
		t.Error("a directory was read as a scenario")
	}
	p := filepath.Join(dir, "locked.yaml")
	if err := os.WriteFile(p, []byte("name: x\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 { // root reads anything
		if _, err := readScenario(context.Background(), p); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("unreadable file: %v", err)
		}
	}
}
