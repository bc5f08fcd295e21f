package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// The help is output like any other: a write that fails is exit 1 with the
// error, never a silent exit 0.
func TestHelpWriteFails(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "model"}, {"model", "--help"}} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, fullWriter{}, &stderr)
		if code := exitCode(err, &stderr); code != 1 {
			t.Errorf("%v: exit %d (%v), want 1", args, code, err)
		}
	}
}
