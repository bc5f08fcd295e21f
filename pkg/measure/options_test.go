package measure

import (
	"strings"
	"testing"
	"time"
)

func TestCheckOptions(t *testing.T) {
	for _, tc := range []struct {
		probes []string
		opts   map[string]string
		want   string // "" for accepted
	}{
		{[]string{"tcp"}, map[string]string{"rate": "1Gbit/s", "timeout": "2s", "sndbuf": "4MiB", "variants": "pingpong"}, ""},
		{[]string{"tcp"}, map[string]string{"chunck": "1MiB"}, `unknown option "chunck" for probes tcp (valid: pingpong_max, port, rate, rcvbuf, sndbuf, timeout, variants)`},
		{[]string{"memcpy", "syscall"}, map[string]string{"x": "1"}, `unknown option "x" for probes memcpy,syscall (valid: none)`},
		{[]string{"tcp"}, map[string]string{"rate": "fast"}, "option rate=fast: want a rate like 1Gbit/s"},
		{[]string{"tcp"}, map[string]string{"timeout": "1m30s"}, "option timeout=1m30s: want a duration like 2s"},
		{[]string{"tcp"}, map[string]string{"port": "x"}, "option port=x: want a whole number"},
		{[]string{"tcp"}, map[string]string{"variants": "pingpong,"}, "an empty name"},
		{[]string{"perftest"}, map[string]string{"use_cuda": "off"}, ""},
		{[]string{"nosuch"}, nil, `unknown probe "nosuch"`},
	} {
		err := CheckOptions(tc.probes, tc.opts)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v %v: %v", tc.probes, tc.opts, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v %v: %v, want %q", tc.probes, tc.opts, err, tc.want)
		}
	}
}

func TestOptionValues(t *testing.T) {
	plan := Plan{Options: map[string]string{"d": "200ms", "z": "0", "off": "off", "bad": "-1s", "s": "512KiB", "tiny": "0"}}
	for name, want := range map[string]time.Duration{"d": 200 * time.Millisecond, "z": 0, "off": 0, "none": 7 * time.Second} {
		if got, err := DurationOption(plan, name, 7*time.Second); err != nil || got != want {
			t.Errorf("DurationOption(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := DurationOption(plan, "bad", 0); err == nil {
		t.Error("a negative duration accepted")
	}
	if n, err := SizeOption(plan, "s", 1); err != nil || n != 512<<10 {
		t.Errorf("SizeOption = %v, %v", n, err)
	}
	if n, err := SizeOption(plan, "none", 9); err != nil || n != 9 {
		t.Errorf("default SizeOption = %v, %v", n, err)
	}
	if _, err := SizeOption(plan, "tiny", 1); err == nil {
		t.Error("a size of 0 accepted")
	}
}
