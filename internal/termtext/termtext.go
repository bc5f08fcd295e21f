// Package termtext makes text from outside (a scenario's name, a manifest's
// cpu_model, a line of another tool's output) safe to print on a terminal:
// control characters — ESC and every other C0 and C1 code, DEL, and the
// Unicode bidirectional overrides — are replaced by a visible escape
// (\x1b, \u202e), so `ESC]0;…` cannot retitle a window and `ESC[2J` cannot
// clear a screen. Tabs are kept; newlines too where a caller asks.
package termtext

import (
	"fmt"
	"strings"
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
		case r == 0x7f, r >= 0x80 && r < 0xa0, bidi(r), r == 0x2028 || r == 0x2029:
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
// a bidirectional control. Tab and newline are among them; callers that
// keep those say so.
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || bidi(r)
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

// bidi reports the Unicode bidirectional controls that reorder what a
// terminal shows (Trojan Source).
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// ShellWord quotes a value for a shell command line printed to the user
// when it holds spaces or shell characters (a GPU's name, a path): single
// quotes, an inner one written '\”.
func ShellWord(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t'\"$`\\|&;<>()*?[]#~!{}") {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
