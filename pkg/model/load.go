package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// (default: the preset "default"); its keys override the base's. Parse
// reads no file: the caller does (bounded by MaxScenarioBytes).
func Parse(data []byte, name string) (*Scenario, error) {
	return parse(data, name, nil, false)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parse decodes data on top of base (nil: the base named in the file, or
// "default"). With requireAll, every key must be set (presets).
func parse(data []byte, file string, base *Scenario, requireAll bool) (*Scenario, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{File: file, Err: errors.New("the file is empty (a scenario is YAML: key: value)")}
	}
	if !utf8Text(data) {
		return nil, &InputError{File: file, Err: errors.New("not a text file (a scenario is YAML: key: value)")}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		return nil, &InputError{File: file, Err: errors.New("the file is empty: it holds only comments (a scenario is YAML: key: value)")}
	}
	if err == nil {
		var second yaml.Node
		if e := dec.Decode(&second); e == nil {
			line := second.Line
			if len(second.Content) > 0 {
				line = second.Content[0].Line
			}
			return nil, &InputError{File: file, Line: line, Err: errors.New("a second YAML document (after ---): a scenario file holds one")}
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
		return nil, &InputError{File: file, Line: line, Err: fmt.Errorf("not valid YAML: %s", msg)}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &InputError{File: file, Err: errors.New("the file is empty: it holds only comments (a scenario is YAML: key: value)")}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &InputError{File: file, Line: root.Line, Err: errors.New("not a scenario: expected `key: value` lines at the top level")}
	}
	s := base
	if s == nil {
		baseName := "default"
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "base" {
				v := root.Content[i+1]
				if v.Kind != yaml.ScalarNode || v.Value == "" {
					return nil, &InputError{File: file, Line: v.Line, Key: "base", Err: errors.New("expected a preset name")}
				}
				baseName = v.Value
			}
		}
		p, err := Preset(baseName)
		if err != nil {
			return nil, &InputError{File: file, Key: "base", Err: err}
		}
		s = p
	} else {
		s = s.Clone()
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
				k, ok := lookupKey(name)
				if !ok {
					if isSection(name) {
						return &InputError{File: file, Line: kn.Line, Key: name, Err: errors.New("is a section: expected keys below it")}
					}
					return &InputError{File: file, Line: kn.Line, Key: name, Err: unknownKeyErr(name)}
				}
				if vn.Tag == "!!null" {
					return &InputError{File: file, Line: vn.Line, Key: name, Err: errors.New("has no value")}
				}
				if err := k.parse(s, vn.Value); err != nil {
					return &InputError{File: file, Line: vn.Line, Key: name, Err: err}
				}
			case yaml.SequenceNode:
				return &InputError{File: file, Line: vn.Line, Key: name, Err: errors.New("expected a single value, found a list")}
			default:
				return &InputError{File: file, Line: vn.Line, Key: name, Err: errors.New("expected a single value")}
			}
		}
		return nil
	}
	if err := walk(root, ""); err != nil {
		return nil, err
	}
	if requireAll {
		for _, k := range keys {
			if _, ok := seen[k.Name]; !ok && !k.Optional {
				return nil, &InputError{File: file, Key: k.Name, Err: errors.New("missing (a preset sets every key)")}
			}
		}
	}
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
