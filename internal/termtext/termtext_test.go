package termtext

import (
	"bytes"
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

// The one JSON writer leaves no string that decodes to a control
// character (tabs and newlines kept, as on a terminal): each decodes to
// CleanText of what was encoded, the text the table and CSV forms print;
// and the same holds for the document written in two pieces cut anywhere.
func FuzzJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add(s, 3)
	}
	f.Add("\xed\xa0\x80\x1b\U0001f600\u2028\b\f", 17)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		if s == "k" {
			return
		}
		in, _ := json.MarshalIndent(map[string]any{"k": s, s: []string{"v", s}}, "", "  ")
		out := JSON(in)
		if !Safe(string(out), true) {
			t.Fatalf("control characters left in %q", out)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		want := CleanText(string([]rune(s))) // encoding/json writes U+FFFD for a byte that is not UTF-8
		if m["k"] != want || len(m) != len(map[string]bool{"k": true, s: true}) {
			t.Fatalf("%q came out %q, want %q", s, m["k"], want)
		}
		for k, v := range m {
			if !Safe(k, true) {
				t.Fatalf("key %q holds a control character", k)
			}
			if l, ok := v.([]any); ok && (len(l) != 2 || l[1] != want) {
				t.Fatalf("list %q, want [v %q]", l, want)
			}
		}
		cut = max(0, min(len(in), cut%(len(in)+1)))
		var w bytes.Buffer
		jw := NewJSONWriter(&w)
		jw.Write(in[:cut])
		jw.Write(in[cut:])
		if !bytes.Equal(w.Bytes(), out) {
			t.Fatalf("cut at %d: %q, whole: %q", cut, w.Bytes(), out)
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

// The one JSON writer leaves nothing raw that Safe refuses, nor an escape
// that decodes to a control character, and does not HTML-escape.
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
	if err := json.Unmarshal(b, &back); err != nil || back["host"] != `EV\x1b[31mIL\u202e\u200b\udb40\udc01` || back["note"] != v["note"] {
		t.Fatalf("decoded %q (%v), want the host's escapes as text", back, err)
	}
	var w strings.Builder
	if err := NewJSONEncoder(&w).Encode(v); err != nil || !Safe(w.String(), true) || !strings.HasSuffix(w.String(), "}\n") {
		t.Fatalf("encoder wrote %q (%v)", w.String(), err)
	}
}

// A JSON document through the terminal writer stays JSON with the same
// values: Clean's escapes of what encoding/json leaves raw (DEL, C1,
// invisible format characters, a surrogate pair past U+FFFF) are valid
// JSON escapes, so a document through it stays a document (what it holds
// is escaped as text by NewJSONWriter before).
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
