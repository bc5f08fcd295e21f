package termtext

import (
	"encoding/json"
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
		{"del\x7f", `del\u007f`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"zw\u200bsp\ufeffbom\u00adshy\u2060wj", `zw\u200bsp\ufeffbom\u00adshy\u2060wj`},
		{"tag\U000e0001x", `tag\udb40\udc01x`},
		{"é ü 中 😀", "é ü 中 😀"},
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
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", s)
		}
		for _, r := range out {
			if IsControl(r) && r != '\t' {
				t.Fatalf("control %U left in %q", r, out)
			}
		}
		if strings.ContainsRune(out, '\n') {
			t.Fatal("newline left")
		}
	})
}

// seeds are the fuzz corpora's hostile strings: ESC, BEL, NUL, CR, LF,
// U+2028, a bidi override, invisible format characters (zero width space,
// byte-order mark, soft hyphen, a tag, word joiner), a C1 control, DEL and
// bytes that are not UTF-8.
var seeds = []string{"", "plain", "zw\u200b", "bom\ufeff", "shy\u00ad", "tag\U000e0041", "wj\u2060", "\x1b[2J", "\x1b]0;t\x07", "nul\x00", "cr\r", "lf\n", "ls\u2028", "rlo\u202e", "c1\u009b", "del\x7f", "bad\xff\xfe", "\xe2\x80"}

func FuzzJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, _ := json.MarshalIndent(map[string]string{"k": s, s: "v"}, "", "  ")
		out := JSON(in)
		if !Safe(string(out), true) {
			t.Fatalf("control characters left in %q", out)
		}
		var a, b map[string]string
		if err := json.Unmarshal(in, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if a["k"] != b["k"] || len(a) != len(b) {
			t.Fatalf("value changed: %q, %q", a, b)
		}
	})
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"h100": "h100", "": "''", "NVIDIA H100 80GB": "'NVIDIA H100 80GB'", "it's": `'it'\''s'`} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
	// A name a terminal would not show as itself: bash's $'…', byte for
	// byte, with no control character on the line.
	for in, want := range map[string]string{"a\nb.yaml": `$'a\x0ab.yaml'`, "it's\x1b[31m": `$'it\'s\x1b[31m'`, "\xff\\": `$'\xff\\'`, "é\u200b": `$'é\xe2\x80\x8b'`} {
		if got := ShellWord(in); got != want || Clean(got) != got {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

// The one JSON writer leaves nothing raw that Safe refuses, keeps the
// value, and does not HTML-escape.
func TestJSONWriter(t *testing.T) {
	v := map[string]string{"host": "EV\x1b[31mIL\u202e\u200b\U000e0001", "note": "a<b & c>d"}
	b, err := MarshalJSONIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !Safe(string(b), true) {
		t.Fatalf("raw controls left: %q", b)
	}
	if !strings.Contains(string(b), "a<b & c>d") {
		t.Errorf("HTML-escaped: %s", b)
	}
	var back map[string]string
	if err := json.Unmarshal(b, &back); err != nil || back["host"] != v["host"] {
		t.Fatalf("value changed: %q %v", back, err)
	}
	var w strings.Builder
	if err := NewJSONEncoder(&w).Encode(v); err != nil || !Safe(w.String(), true) || !strings.HasSuffix(w.String(), "}\n") {
		t.Fatalf("encoder wrote %q (%v)", w.String(), err)
	}
}

// A JSON document through the terminal writer stays JSON with the same
// values: Clean's escapes of what encoding/json leaves raw (DEL, C1,
// invisible format characters, a surrogate pair past U+FFFF) are valid
// JSON escapes, so pkg/model's JSON, written to stdout through it, needs no
// writer of its own.
func FuzzTerminalWriterKeepsJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, _ := json.MarshalIndent(map[string]string{"k": s}, "", "  ")
		var w strings.Builder
		tw := &Writer{W: &w}
		tw.Write(in)
		tw.Flush()
		var a, b map[string]string
		json.Unmarshal(in, &a)
		if err := json.Unmarshal([]byte(w.String()), &b); err != nil {
			t.Fatalf("%q → %q: %v", in, w.String(), err)
		}
		if a["k"] != b["k"] {
			t.Fatalf("value changed: %q → %q", a["k"], b["k"])
		}
	})
}

// NameAll reaches every exported string: fields, slices, pointers, maps.
func TestNameAll(t *testing.T) {
	type inner struct{ S string }
	v := struct {
		A      string
		L      []string
		P      *inner
		M      map[string]string
		hidden string
	}{A: "a\x1b", L: []string{"b\n"}, P: &inner{S: "c\x07"}, M: map[string]string{"k": "d\u2028"}, hidden: "e\x1b"}
	NameAll(&v)
	if v.A != `a\x1b` || v.L[0] != `b\x0a` || v.P.S != `c\x07` || v.M["k"] != `d\u2028` || v.hidden != "e\x1b" {
		t.Errorf("%+v %+v", v, *v.P)
	}
}
