package termtext

import (
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf16"
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

// JSON rewrites encoded JSON so that it holds no raw control character:
// DEL, C1 controls, U+2028/U+2029 and the invisible format characters
// (bidirectional controls, zero widths, U+FEFF, tags: a surrogate pair past
// U+FFFF), which
// encoding/json leaves raw inside strings, become \uXXXX escapes — the
// same value to every JSON parser — and a byte that is not UTF-8 becomes
// \ufffd, as encoding/json would have written it. C0 controls other than
// the whitespace between tokens never occur in encoding/json's output;
// should one, it becomes \u00XX too. Valid JSON in, the same value out.
func JSON(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); i++ {
		if c := b[i]; c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r == '\n' || r == '\t' || r == '\r':
			out = append(out, byte(r))
		case IsControl(r) && r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		case IsControl(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
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

// CutMiddle shortens s to about max bytes by leaving out its middle, at
// character boundaries, and says how much it left out ("… (98000 of
// 100000 bytes left out) …"); s itself when it fits. It is the cut of an
// error line: a message that quotes a long argument keeps its start and
// its end, where the hint or the cause is.
func CutMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	tail := max / 4
	head := max - tail
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
