package model

import (
	"bytes"
	"testing"
)

func TestPresetsLoadAndRoundTrip(t *testing.T) {
	names := PresetNames()
	if len(names) < 6 || names[0] != "default" {
		t.Fatalf("presets %v: want ≥ 6 with default first", names)
	}
	for _, n := range names {
		s, err := Preset(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		back, err := parsePreset(s.YAML(), n)
		if err != nil {
			t.Fatalf("%s: YAML() does not parse back: %v\n%s", n, err, s.YAML())
		}
		if d := Diff(s, back); len(d) > 0 {
			t.Errorf("%s: keys changed by a YAML round trip: %v", n, d)
		}
		src, _ := PresetSource(n)
		// Every value line carries its source or meaning in a comment.
		for i, line := range bytes.Split(src, []byte("\n")) {
			l := bytes.TrimSpace(line)
			if len(l) == 0 || l[0] == '#' || bytes.HasSuffix(l, []byte(":")) {
				continue
			}
			if bytes.HasPrefix(l, []byte("name:")) || bytes.HasPrefix(l, []byte("description:")) || bytes.HasPrefix(l, []byte("model:")) {
				continue
			}
			// booleans that simply state a capability need no citation
			if bytes.HasSuffix(l, []byte(": true")) || bytes.HasSuffix(l, []byte(": false")) || bytes.HasPrefix(l, []byte("kind:")) {
				continue
			}
			if !bytes.Contains(l, []byte("#")) {
				t.Errorf("%s line %d has no source comment: %s", n, i+1, l)
			}
		}
	}
}
