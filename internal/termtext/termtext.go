// Package termtext makes text from outside (a scenario's name, a manifest's
// cpu_model, a line of another tool's output) safe to print on a terminal:
// control characters — ESC and every other C0 and C1 code, DEL, and the
// invisible Unicode format characters (the bidirectional overrides, zero
// widths such as U+200B, the byte-order mark U+FEFF, the soft hyphen, tag
// characters: category Cf) — are replaced by a visible escape (\x1b,
// \u202e), so `ESC]0;…` cannot retitle a window, `ESC[2J` cannot clear a
// screen and two names that look alike on screen are told apart. Tabs are kept; newlines too where a caller asks.
package termtext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Clean returns s with every control character escaped; newlines become
// "\n" as well: one line.
func Clean(s string) string { return clean(s, false) }

// CleanText is Clean but keeps newlines (multi-line text such as a report
// to stdout).
func CleanText(s string) string { return clean(s, true) }

func clean(s string, keepNL bool) string {
	if safe(s, keepNL) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || (keepNL && r == '\n'):
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r > 0xffff && invisible(r):
			// A surrogate pair: the same escape is valid inside a JSON
			// string, so a JSON document through the terminal writer stays
			// JSON.
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		case r == 0x7f, r >= 0x80 && r < 0xa0, invisible(r), r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func safe(s string, keepNL bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && !(keepNL && c == '\n') || c == 0x7f || c >= 0x80 {
			// Non-ASCII needs a closer look.
			return false
		}
	}
	return true
}

// IsControl reports whether r is a character Clean escapes: a C0 or C1
// control, DEL, a Unicode line or paragraph separator (U+2028, U+2029) or
// an invisible format character (category Cf: the bidirectional controls
// among them). Tab and newline are among them; callers that
// keep those say so.
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || invisible(r)
}

// Safe reports whether s is valid UTF-8 without a control character
// (IsControl), tabs allowed and newlines where keepNL: what Clean (keepNL
// false) or CleanText (keepNL true) would return unchanged.
func Safe(s string, keepNL bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if IsControl(r) && r != '\t' && !(keepNL && r == '\n') {
			return false
		}
	}
	return true
}

// invisible reports the Unicode format characters (category Cf): the
// bidirectional controls that reorder what a terminal shows (Trojan
// Source: U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) and the
// characters that show nothing (U+200B–U+200D, U+2060–U+2064, U+FEFF,
// U+00AD, U+206A–U+206F, U+FFF9–U+FFFB, the tags U+E0001–U+E007F).
func invisible(r rune) bool {
	return r >= 0xad && unicode.Is(unicode.Cf, r)
}

// ShellWord quotes a value for a shell command line printed to the user
// when it holds spaces or shell characters (a GPU's name, a path): single
// quotes, an inner one written '\”. A value with a character a terminal
// would not show as itself (a control, a byte not UTF-8, an invisible
// format character) is written as bash's $'…' with each such byte \xHH:
// the word pasted back is the value, byte for byte, and the line printed
// holds no control character.
func ShellWord(v string) string {
	if Clean(v) != v {
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(v); {
			r, n := utf8.DecodeRuneInString(v[i:])
			switch {
			case r == '\\' || r == '\'':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r == utf8.RuneError && n == 1, !unicode.IsPrint(r) && r != ' ', invisible(r):
				for _, c := range []byte(v[i : i+n]) {
					fmt.Fprintf(&b, `\x%02x`, c)
				}
			default:
				b.WriteString(v[i : i+n])
			}
			i += n
		}
		b.WriteByte('\'')
		return b.String()
	}
	if v != "" && !strings.ContainsAny(v, " \t'\"$`\\|&;<>()*?[]#~!{}") {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
