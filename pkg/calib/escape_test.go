package calib

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// FuzzYAMLName: a hostname and a source from outside go into the host
// scenario's name, description and comments; the file reads back with
// model.Parse, holds no control character, and its name holds none.
func FuzzYAMLName(f *testing.F) {
	for _, s := range []string{"", "vm", "\x1b]0;pwn\x07", "nul\x00", "cr\r", "lf\n", "ls\u2028", "rlo\u202e", "c1\u009b", "del\x7f", "bad\xff", "a: b # c", "\"q\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rd := &record.RunData{Dir: "run", Manifest: record.Manifest{Start: time.Unix(0, 0).UTC(), Version: "v", Host: record.Host{Hostname: s}}}
		ovs := []model.Override{{Key: "cpu.cores", Value: 8, Source: "manifest: " + s}, {Key: "cpu.model", Value: s, Source: s}}
		b, err := HostScenarioYAML(rd, ovs, []string{s})
		if err != nil {
			return // a value the key refuses is refused before any file
		}
		if !termtext.Safe(string(b), true) {
			t.Fatalf("control characters in\n%s", b)
		}
		sc, err := model.Parse(b, "host-scenario.yaml")
		if err != nil {
			t.Fatalf("does not read back: %v\n%s", err, b)
		}
		if !termtext.Safe(sc.Name, false) || !termtext.Safe(sc.CPU.Model, false) {
			t.Fatalf("name %q, cpu.model %q", sc.Name, sc.CPU.Model)
		}
		var w bytes.Buffer
		if err := WriteScenarioYAML(&w, s, ovs); err == nil {
			if _, err := model.Parse(w.Bytes(), "fit.yaml"); err != nil || !termtext.Safe(w.String(), true) {
				t.Fatalf("fit's scenario: %v\n%s", err, w.Bytes())
			}
		}
	})
}

// The calibrated scenario's name counts escaped bytes against its limit:
// a 512-byte host name of control characters (2,048 bytes escaped), or
// many long host names, still give a name the model takes.
func TestCalibratedNameFits(t *testing.T) {
	long := strings.Repeat("\x01", record.MaxNameBytes)
	many := make([]RunInfo, 8)
	for i := range many {
		many[i].Host = fmt.Sprintf("%d%s", i, strings.Repeat("h", 250))
	}
	for _, c := range []struct {
		name string
		runs []RunInfo
		want string
	}{
		{"escaped", []RunInfo{{Host: long}}, "…"},
		{"many", many, "+ 5 more"},
		{"one", []RunInfo{{Host: "a\x1bb"}, {Host: "c"}}, `a\x1bb+c`},
	} {
		name := calibratedPrefix + hostList(c.runs)
		s := model.Default()
		if err := s.Set("name", name); err != nil || len(name) > model.MaxTextBytes || !strings.HasSuffix(name, c.want) || !termtext.Safe(name, false) {
			t.Errorf("%s: %d bytes %q: %v", c.name, len(name), name[max(0, len(name)-40):], err)
		}
	}
}
