package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"h100-cx7-ndr", "h100-cx7-ndr"},
		{"µs → GPU", "µs → GPU"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\x07title`},
		{"\x1b[2Jclear", `\x1b[2Jclear`},
		{"a\tb", "a\tb"},
		{"two\nlines", `two\x0alines`},
		{"c1\u009bcsi", `c1\u009bcsi`},
		{"bidi\u202eevil", `bidi\u202eevil`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"del\x7f", `del\x7f`},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := CleanText("a\nb\x1b"); got != "a\nb\\x1b" {
		t.Errorf("CleanText kept %q", got)
	}
}

func FuzzClean(f *testing.F) {
	f.Add("\x1b]0;x\x07")
	f.Add("µs\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || bidi(r) {
				t.Fatalf("control %U left in %q", r, out)
			}
		}
		if strings.ContainsRune(out, '\n') {
			t.Fatal("newline left")
		}
	})
}
