package fstree

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A file past the Recorder's Limit is an error and is not recorded: a
// sysfs attribute states 4096 bytes whatever it holds, so its size does not
// bound the read.
func TestRecorderLimit(t *testing.T) {
	m := fstest.MapFS{"big": {Data: []byte(strings.Repeat("x", 100))}, "small": {Data: []byte("1\n")}}
	r := &Recorder{FS: m, Limit: 10}
	if _, err := r.ReadFile("big"); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("big: %v", err)
	}
	if b, err := r.ReadFile("small"); err != nil || string(b) != "1\n" {
		t.Errorf("small: %q %v", b, err)
	}
	for _, e := range r.Entries() {
		if e.Path == "big" {
			t.Error("a file over the limit was recorded")
		}
	}
	if b, err := (&Recorder{FS: m}).ReadFile("big"); err != nil || len(b) != 100 {
		t.Errorf("no limit: %d %v", len(b), err)
	}
}
