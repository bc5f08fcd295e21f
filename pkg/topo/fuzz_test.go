package topo

import (
	"math"
	"strings"
	"testing"
)

// The fuzz targets check that the parsers of outside text never panic and
// that what they accept is sane. Their seed corpora are in testdata/fuzz.

func FuzzParseLinkSpeed(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseLinkSpeed(s)
		if err == nil && (v <= 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Errorf("ParseLinkSpeed(%q) = %v", s, v)
		}
		if w, err := ParseLinkWidth(s); err == nil && (w < 0 || w > 32) {
			t.Errorf("ParseLinkWidth(%q) = %d", s, w)
		}
	})
}

func FuzzParsePCIPath(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		hb, chain, err := ParsePCIPath(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(hb, "pci") || len(chain) == 0 {
			t.Errorf("ParsePCIPath(%q) = %q %v", s, hb, chain)
		}
		for _, a := range chain {
			if b, err := ParseAddress(a); err != nil || b != a {
				t.Errorf("chain element %q not canonical (%q, %v)", a, b, err)
			}
		}
	})
}

func FuzzParsePortRate(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		bps, w, _, err := ParsePortRate(s)
		if err == nil && (bps < 0 || math.IsNaN(bps) || math.IsInf(bps, 0) || w < 0 || w > 32) {
			t.Errorf("ParsePortRate(%q) = %v %d", s, bps, w)
		}
		if c, n, err := ParsePortState(s); err == nil && (n == "" || strings.ContainsAny(n, "\n")) {
			t.Errorf("ParsePortState(%q) = %d %q", s, c, n)
		}
		if g, ok, err := ParseGID(s); err == nil {
			if g2, ok2, err2 := ParseGID(g); err2 != nil || g2 != g || ok2 != ok {
				t.Errorf("ParseGID(%q) = %q does not round-trip", s, g)
			}
		}
	})
}

func FuzzParseSMIMatrix(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseSMIMatrixBytes(b)
		if err != nil {
			return
		}
		if len(m.Links) != len(m.Devices) {
			t.Fatalf("%d rows for %d devices", len(m.Links), len(m.Devices))
		}
		for i, row := range m.Links {
			if len(row) != len(m.Devices) || row[i] != Self {
				t.Fatalf("row %d = %v", i, row)
			}
			for _, c := range row {
				if c.Rank() > 6 {
					t.Fatalf("unknown class %q accepted", c)
				}
			}
		}
	})
}
