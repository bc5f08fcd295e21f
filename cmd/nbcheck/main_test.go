package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

const failing = "../../internal/nbcheck/testdata/failing.executed.ipynb"

func TestRun(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  []string
		usage bool   // a usage error (exit 2)
		err   string // a failure (exit 1), "" for success
		out   []string
	}{
		{"findings fail", []string{failing}, false, "8 finding(s) in 1 notebook(s)",
			[]string{failing + ": cell 3: panic: panic: deliberate failure", "cell 5: exit-status: exit status 1"}},
		{"expected findings pass", []string{"-expect", "hand-number,panic,exit-status,error,no-output,long-cell", failing}, false, "",
			[]string{"every expected failure was caught"}},
		{"a missing kind fails", []string{"-expect", "hand-number,panic,exit-status,error,no-output,long-cell,kernel", failing}, false,
			"missing [kernel], unexpected []", nil},
		{"an unexpected kind fails", []string{"-expect", "panic,exit-status,error,no-output,long-cell", failing}, false,
			"missing [], unexpected [hand-number]", nil},
		{"no notebook", nil, true, "no notebooks given", nil},
		{"unknown kind", []string{"-expect", "nope", failing}, true, `unknown kind "nope"`, nil},
		{"bad flag", []string{"-nope"}, true, "flag provided but not defined", nil},
		{"missing file", []string{"missing.ipynb"}, false, "missing.ipynb", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), c.args, &stdout, &stderr)
			var ue usageError
			if got := errors.As(err, &ue); got != c.usage {
				t.Errorf("usage error = %v (%v), want %v", got, err, c.usage)
			}
			switch {
			case c.err == "" && err != nil:
				t.Errorf("err = %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("err = %v, want %q", err, c.err)
			}
			for _, w := range c.out {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
		})
	}
}
