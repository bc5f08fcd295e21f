package termtext

import (
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// The sinks: every place gpupath writes text from outside for a person or
// a parser to read goes through one of these, each built on Clean or
// CleanText, so that what it writes holds no control character but its own
// newlines.

// HTML is the text of an HTML page (a report's index.html with its inline
// SVG), after html/template has escaped <, >, & and quotes: control
// characters become the visible escapes of CleanText; newlines stay.
// Applied to the whole page, it covers every section, attribute and figure
// label at once.
func HTML(page string) string { return CleanText(page) }

// CSVCell is one cell of a CSV file: Clean, one line, so that every record
// is one line and a viewer's `cat` shows no escape sequence.
func CSVCell(s string) string { return Clean(s) }

// YAMLComment is the text of one comment line of a YAML file gpupath reads
// back: Clean, so that a newline cannot end the comment and start YAML, and
// no control character makes the parser refuse the file.
func YAMLComment(s string) string { return Clean(s) }

// Line is one line of a document gpupath lays out (a report's heading,
// paragraph, table cell, caption, figure origin): Clean, so that a name
// from outside with a line break in it stays on its line and shows as its
// escape, as the terminal shows it.
func Line(s string) string { return Clean(s) }

// Name is a name from outside (a hostname, a scenario's or a probe's name)
// before it goes into a file gpupath reads back (a scenario's name: key, a
// run's manifest): Clean, one line.
func Name(s string) string { return Clean(s) }

// JSON rewrites encoded JSON so that no string in it decodes to a control
// character: each string value (and key) comes out as CleanText makes it
// for a terminal, \x1b for ESC, \u202e for a bidirectional override, \x0d
// for a carriage return, tabs and newlines kept — the same text as the
// table and CSV forms print. A raw control character (DEL, C1, U+2028,
// the invisible format characters that encoding/json leaves raw) and a
// JSON escape of one (\u001b, \r, \b, \f) alike become that visible
// escape, so `jq -r` cannot send ESC to a terminal. Valid JSON in, valid
// JSON out, with the same structure and numbers.
func JSON(b []byte) []byte {
	if plainJSON(b) {
		return b
	}
	var s jsonStream
	out := s.rewrite(nil, b)
	return append(out, s.pend...)
}

// plainJSON reports whether b holds nothing JSON rewrites: no escape, no
// byte past ASCII, no control byte other than the whitespace between tokens.
func plainJSON(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c >= 0x7f || c < 0x20 && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// NameAll passes every string reachable from v (a pointer to a struct,
// through its exported fields, slices, arrays, pointers and maps' string
// values) through Name: a whole document from outside — what an imported
// file said of its hardware — made one line per text before it goes into a
// file gpupath reads back. Unexported fields are left as they are.
func NameAll(v any) { nameAll(reflect.ValueOf(v)) }

func nameAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			nameAll(v.Elem())
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(Name(v.String()))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				nameAll(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			nameAll(v.Index(i))
		}
	case reflect.Map:
		if v.Type().Elem().Kind() == reflect.String && v.Type().Key().Kind() == reflect.String {
			for _, k := range v.MapKeys() {
				v.SetMapIndex(k, reflect.ValueOf(Name(v.MapIndex(k).String())).Convert(v.Type().Elem()))
			}
		}
	}
}

// CutMiddle shortens s to at most n bytes by leaving out its middle, at
// character boundaries, and says how much it left out ("… (98000 of
// 100000 bytes left out) …"), the count within the n bytes; s itself when
// it fits (an n too small for the count is exceeded by the count alone).
// It is the cut of an error line: a message that quotes a long argument
// keeps its start and its end, where the hint or the cause is.
func CutMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// The count's length when all of s is left out: never shorter than
	// the one written.
	keep := max(0, n-len(fmt.Sprintf(" … (%d of %d bytes left out) … ", len(s), len(s))))
	tail := keep / 4
	head := keep - tail
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	from := len(s) - tail
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return fmt.Sprintf("%s … (%d of %d bytes left out) … %s", s[:head], from-head, len(s), s[from:])
}

// Cut shortens s to its first max bytes, at a character boundary, and
// says how long it was ("… (130000 bytes in all)"); s itself when it fits.
// It is the one cut of a long text a person reads (an error line, a
// doctor finding).
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}

// ControlStrings returns the strings of a JSON document that hold a
// control character once decoded (a JSON escape such as \u001b decodes to
// one): the check of every JSON file gpupath writes from outside text. An
// error is a document that is not JSON.
func ControlStrings(doc []byte) ([]string, error) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	var bad []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if !Safe(x, false) {
				bad = append(bad, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				walk(k)
				walk(e)
			}
		}
	}
	walk(v)
	return bad, nil
}
