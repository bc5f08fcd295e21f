package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxScenarioBytes bounds a scenario file, for the readers that give Parse
// its text. A complete scenario (Scenario.YAML, every key with its comment)
// is about 6 KiB; 1 MiB leaves room for any hand-written one and stops a
// device or a runaway file at once.
const MaxScenarioBytes = 1 << 20

// Parse reads a scenario from YAML text; name (the file's) names it in
// errors. The text may name a preset to start from with `base: NAME`
// (default: the preset "default"); the keys it gives are resolved over it
// (Resolve: given > catalog > derived > preset). Parse reads no file: the
// caller does (bounded by MaxScenarioBytes).
func Parse(data []byte, name string) (*Scenario, error) {
	base, entries, err := walkYAML(data, name)
	if err != nil {
		return nil, err
	}
	if base == "" {
		base = "default"
	}
	p, err := presetOf(base)
	if err != nil {
		return nil, &InputError{File: name, Key: "base", Err: err}
	}
	scratch := p.Clone()
	given := make([]Override, 0, len(entries))
	lines := map[string]int{}
	for _, e := range entries {
		k, _ := lookupKey(e.key)
		if err := k.parse(scratch, e.value); err != nil { // each bad value with its line
			return nil, &InputError{File: name, Line: e.line, Key: e.key, Err: err}
		}
		given = append(given, Override{Key: e.key, Value: e.value, Source: fmt.Sprintf("%s:%d", name, e.line)})
		lines[e.key] = e.line
	}
	// A file that names itself keeps its name; otherwise the scenario is
	// named after the file, and says what it is made of (the preset's own
	// description would describe other hardware).
	if _, named := lines["name"]; !named {
		given = append([]Override{{Key: "name", Value: fileStem(name), Source: "the file's name (it has no name: key)"}}, given...)
	}
	if _, described := lines["description"]; !described {
		given = append([]Override{{Key: "description", Value: "the preset " + base + " with the keys of " + path.Base(name), Source: "no description: key"}}, given...)
	}
	s, err := resolve(base, given)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) && ie.File == "" {
			ie.File, ie.Line = name, lines[ie.Key]
		}
		return nil, err
	}
	return s, nil
}

// fileStem is a file's name without its directory and extension.
func fileStem(name string) string {
	b := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	if b == "" || b == "." || b == "/" {
		return "scenario"
	}
	return b
}

// parsePreset reads a built-in preset: every key must be set, and the
// comment beside each value is its source.
func parsePreset(data []byte, name string) (*Scenario, error) {
	file := "preset " + name
	base, entries, err := walkYAML(data, file)
	if err != nil {
		return nil, err
	}
	if base != "" {
		return nil, &InputError{File: file, Key: "base", Err: errors.New("a preset has no base")}
	}
	s := &Scenario{}
	prov := make(map[string]Resolved, len(keys))
	seen := map[string]int{}
	for _, e := range entries {
		k, _ := lookupKey(e.key)
		if err := k.parse(s, e.value); err != nil {
			return nil, &InputError{File: file, Line: e.line, Key: e.key, Err: err}
		}
		src := "preset " + name
		if e.comment != "" {
			src += ": " + e.comment
		}
		prov[e.key] = Resolved{Key: e.key, Rule: RulePreset, Source: src}
		seen[e.key] = e.line
	}
	for _, k := range keys {
		if _, ok := seen[k.Name]; !ok && !k.Optional {
			return nil, &InputError{File: file, Key: k.Name, Err: errors.New("missing (a preset sets every key)")}
		}
		if _, ok := prov[k.Name]; !ok {
			prov[k.Name] = Resolved{Key: k.Name, Rule: RulePreset, Source: "preset " + name + ": not set (zero: none)"}
		}
	}
	s.spec = &spec{base: name, prov: prov}
	if err := s.Validate(); err != nil {
		var ie *InputError
		if errors.As(err, &ie) && ie.File == "" {
			ie.File = file
			ie.Line = seen[ie.Key]
		}
		return nil, err
	}
	return s, nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlEntry is one key of a scenario file as written.
type yamlEntry struct {
	key, value string
	line       int
	comment    string // the comment on the value's line, without "# "
}

// walkYAML checks the shape of a scenario file and lists its keys (dotted,
// in file order) with their text; base is the preset it names ("" when
// none).
func walkYAML(data []byte, file string) (base string, entries []yamlEntry, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "", nil, &InputError{File: file, Err: errors.New("the file is empty (a scenario is YAML: key: value)")}
	}
	if !utf8Text(data) {
		return "", nil, &InputError{File: file, Err: errors.New("not a text file (a scenario is YAML: key: value)")}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err = dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		return "", nil, &InputError{File: file, Err: errors.New("the file is empty: it holds only comments (a scenario is YAML: key: value)")}
	}
	if err == nil {
		var second yaml.Node
		if e := dec.Decode(&second); e == nil {
			line := second.Line
			if len(second.Content) > 0 {
				line = second.Content[0].Line
			}
			return "", nil, &InputError{File: file, Line: line, Err: errors.New("a second YAML document (after ---): a scenario file holds one")}
		} else if !errors.Is(e, io.EOF) {
			err = e
		}
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ = strconv.Atoi(m[1])
			msg = strings.TrimSpace(yamlLine.ReplaceAllString(msg, ""))
			msg = strings.TrimPrefix(msg, ": ")
		}
		return "", nil, &InputError{File: file, Line: line, Err: fmt.Errorf("not valid YAML: %s", msg)}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return "", nil, &InputError{File: file, Err: errors.New("the file is empty: it holds only comments (a scenario is YAML: key: value)")}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return "", nil, &InputError{File: file, Line: root.Line, Err: errors.New("not a scenario: expected `key: value` lines at the top level")}
	}
	seen := map[string]int{}
	var walk func(n *yaml.Node, prefix string) error
	walk = func(n *yaml.Node, prefix string) error {
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if vn.Kind == yaml.AliasNode && vn.Alias != nil {
				vn = vn.Alias // *name: the value of the anchor &name
			}
			if kn.Kind != yaml.ScalarNode || !isIdent(kn.Value) {
				return &InputError{File: file, Line: kn.Line, Err: fmt.Errorf("bad key %q", kn.Value)}
			}
			name := kn.Value
			if prefix != "" {
				name = prefix + "." + kn.Value
			}
			if prev, dup := seen[name]; dup {
				return &InputError{File: file, Line: kn.Line, Key: name, Err: fmt.Errorf("given twice (first on line %d)", prev)}
			}
			seen[name] = kn.Line
			if name == "base" {
				if vn.Kind != yaml.ScalarNode || vn.Value == "" {
					return &InputError{File: file, Line: vn.Line, Key: "base", Err: errors.New("expected a preset name")}
				}
				base = vn.Value
				continue
			}
			switch vn.Kind {
			case yaml.MappingNode:
				if _, isKey := lookupKey(name); isKey {
					return &InputError{File: file, Line: vn.Line, Key: name, Err: errors.New("expected a value, found a section")}
				}
				if !isSection(name) {
					return &InputError{File: file, Line: kn.Line, Key: name, Err: unknownKeyErr(name)}
				}
				if err := walk(vn, name); err != nil {
					return err
				}
			case yaml.ScalarNode:
				if _, ok := lookupKey(name); !ok {
					if isSection(name) {
						return &InputError{File: file, Line: kn.Line, Key: name, Err: errors.New("is a section: expected keys below it")}
					}
					return &InputError{File: file, Line: kn.Line, Key: name, Err: unknownKeyErr(name)}
				}
				if vn.Tag == "!!null" {
					return &InputError{File: file, Line: vn.Line, Key: name, Err: errors.New("has no value")}
				}
				comment := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(vn.LineComment), "#"))
				entries = append(entries, yamlEntry{key: name, value: vn.Value, line: vn.Line, comment: comment})
			case yaml.SequenceNode:
				return &InputError{File: file, Line: vn.Line, Key: name, Err: errors.New("expected a single value, found a list")}
			default:
				return &InputError{File: file, Line: vn.Line, Key: name, Err: errors.New("expected a single value")}
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return "", nil, err
	}
	return base, entries, nil
}

func isSection(name string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k.Name, name+".") {
			return true
		}
	}
	return false
}

func utf8Text(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	return strings.ToValidUTF8(string(b), "\uFFFD") == string(b)
}

// YAML writes the resolved scenario as a complete YAML file in key order,
// each key with its meaning as a comment. Parse gives back the same scenario.
func (s *Scenario) YAML() []byte {
	var d YAMLDoc
	d.Inline = true
	for _, k := range keys {
		if !strings.Contains(k.Name, ".") {
			d.Entries = append(d.Entries, YAMLEntry{Key: k.Name, Value: k.Text(s)})
			continue
		}
		d.Entries = append(d.Entries, YAMLEntry{Key: k.Name, Value: k.Text(s), Comment: k.Doc})
	}
	var b bytes.Buffer
	WriteYAML(&b, d) // a bytes.Buffer does not fail
	return b.Bytes()
}

// yamlScalar quotes text when YAML would read it as something else.
func yamlScalar(v string) string {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("k: "+v), &n); err == nil && len(n.Content) == 1 && len(n.Content[0].Content) == 2 {
		if got := n.Content[0].Content[1]; got.Kind == yaml.ScalarNode && got.Value == v && got.Tag != "!!null" && !strings.ContainsAny(v, "#\n") {
			return v
		}
	}
	return strconv.Quote(v)
}
