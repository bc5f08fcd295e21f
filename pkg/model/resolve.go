package model

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Rule says how a key of a resolved scenario got its value. Every key
// resolves in this order: the value given > the named catalog entry
// (gpu.model, nic.model, cpu.model, network.switch) > a value derived from
// the other declared keys > the base preset.
type Rule string

// The rules, strongest first.
const (
	// RuleGiven: stated by the user — a scenario file, --set, Apply.
	RuleGiven Rule = "given"
	// RuleCatalog: a fact of a catalog entry the scenario names.
	RuleCatalog Rule = "catalog"
	// RuleDerived: derived from keys that were given, named or derived.
	RuleDerived Rule = "derived"
	// RulePreset: the base preset's value.
	RulePreset Rule = "preset"
)

// Override is one key's value and where it came from: the one typed path
// from a fact to a scenario. Value is the key's Go type (units.Rate,
// units.Seconds, units.Bytes, units.Hertz, units.Meters, Link, Class, bool,
// int, float64, string) or text to parse as a scenario file writes it;
// Source says where the value was found ("my.yaml:12", "--set",
// "nvidia-smi topo -m line 3", "fitted α of 24 copies").
type Override struct {
	Key    string
	Value  any
	Source string
}

// Resolved is how one key of a scenario got its value: the rule and the
// source (for a preset value the comment beside it, for a catalog fact the
// entry and its source, for a derived value the rule and what it read).
type Resolved struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Rule   Rule   `json:"rule"`
	Source string `json:"source"`
}

// ResolvedJSON is the JSON of `gpupath preset show --resolved`: every key
// of the scenario as resolved, in the order of the scenario file.
type ResolvedJSON struct {
	Name     string     `json:"name"`
	Base     string     `json:"base"`
	Warnings []string   `json:"warnings"`
	Keys     []Resolved `json:"keys"`
}

// ResolvedJSON is the scenario's resolution as ResolvedJSON.
func (s *Scenario) ResolvedJSON() ResolvedJSON {
	w := s.Warnings()
	if w == nil {
		w = []string{}
	}
	return ResolvedJSON{Name: s.Name, Base: s.Base(), Warnings: w, Keys: s.Resolution()}
}

// spec is how a scenario was resolved: from which preset, with what given.
// It is never changed once made (Clone shares it); Apply makes a new one.
type spec struct {
	base     string
	given    []Override
	prov     map[string]Resolved
	warnings []string
}

// Base is the name of the preset the scenario was resolved from.
func (s *Scenario) Base() string {
	if s.spec == nil {
		return ""
	}
	return s.spec.base
}

// Given lists what was given, in the order it was given: the keys of a
// scenario file, then --set and Apply.
func (s *Scenario) Given() []Override {
	if s.spec == nil {
		return nil
	}
	return slices.Clone(s.spec.given)
}

// Warnings lists what resolution noticed without refusing it: a model name
// the catalog does not know (with the names near it), a derived value that
// needs a look.
func (s *Scenario) Warnings() []string {
	if s.spec == nil {
		return nil
	}
	return slices.Clone(s.spec.warnings)
}

// Resolution says, for every key in file order, its value, the rule that
// gave it and the source.
func (s *Scenario) Resolution() []Resolved {
	out := make([]Resolved, 0, len(keys))
	for _, k := range keys {
		r := Resolved{Key: k.Name, Rule: RulePreset}
		if s.spec != nil {
			if p, ok := s.spec.prov[k.Name]; ok {
				r = p
			}
		}
		r.Key, r.Value = k.Name, k.Text(s)
		out = append(out, r)
	}
	return out
}

// Set sets one dotted key from text, as --set key=value does: Apply with
// no source. Unknown keys and bad values are *InputError naming the key.
func (s *Scenario) Set(key, value string) error {
	return s.Apply(Override{Key: key, Value: value})
}

// Apply gives keys values and resolves the scenario again from its base
// preset with everything given so far, so that values derived from the
// keys given follow them (nic.kind ib gives an InfiniBand MTU and switch;
// network.hops 0 a short cable). The overrides of one call are resolved
// together: only the result must be a valid scenario. An error (an unknown
// key, a bad value, a combination Validate refuses) is an *InputError
// naming the key (and, for a value a catalog entry or a rule gave, why it
// has it), and leaves s as it was.
func (s *Scenario) Apply(ovs ...Override) error {
	base, given := "default", []Override(nil)
	if s.spec != nil {
		base, given = s.spec.base, s.spec.given
	}
	r, err := resolve(base, append(slices.Clone(given), ovs...))
	if err != nil {
		return err
	}
	name, desc := s.Name, s.Description
	*s = *r
	if !givenKey(r.spec, "name") {
		s.Name = name
	}
	if !givenKey(r.spec, "description") {
		s.Description = desc
	}
	return nil
}

func givenKey(sp *spec, key string) bool {
	return sp != nil && sp.prov[key].Rule == RuleGiven
}

// Resolve makes the scenario of a base preset and what is given, resolving
// every other key by the rules (Rule).
func Resolve(base string, given ...Override) (*Scenario, error) {
	return resolve(base, given)
}

func resolve(baseName string, given []Override) (*Scenario, error) {
	p, err := presetOf(baseName)
	if err != nil {
		return nil, &InputError{Key: "base", Err: err}
	}
	s := p.Clone()
	prov := make(map[string]Resolved, len(keys))
	for k, v := range p.spec.prov {
		prov[k] = v
	}
	sp := &spec{base: baseName, given: given, prov: prov}
	declared := map[string]bool{}
	for _, o := range given {
		k, ok := lookupKey(o.Key)
		if !ok {
			return nil, &InputError{Key: o.Key, Err: unknownKeyErr(o.Key)}
		}
		if err := k.set(s, o.Value); err != nil {
			return nil, &InputError{Key: o.Key, Err: err}
		}
		src := o.Source
		if src == "" {
			src = "set"
		}
		prov[o.Key] = Resolved{Key: o.Key, Rule: RuleGiven, Source: src}
		declared[o.Key] = true
	}
	set := func(o Override, rule Rule) error {
		if r := prov[o.Key].Rule; r == RuleGiven || (rule == RuleDerived && r == RuleCatalog) {
			return nil // a stronger rule gave it
		}
		k, ok := lookupKey(o.Key)
		if !ok {
			return fmt.Errorf("model: %s sets unknown key %s", o.Source, o.Key)
		}
		if err := k.set(s, o.Value); err != nil {
			return fmt.Errorf("model: %s: %s: %w", o.Source, o.Key, err)
		}
		prov[o.Key] = Resolved{Key: o.Key, Rule: rule, Source: o.Source}
		declared[o.Key] = true
		return nil
	}
	for _, ck := range catalogKeys {
		if prov[ck.key].Rule != RuleGiven {
			continue
		}
		name := strings.TrimSpace(keyText(s, ck.key))
		if name == "" {
			continue
		}
		facts, entry, near, ok := catalogFacts(ck.kind, name)
		if !ok {
			w := fmt.Sprintf("%s %q is not in the catalog: free text, the other keys keep their values", ck.key, name)
			if len(near) > 0 {
				w += " (near names: " + strings.Join(near, ", ") + ")"
			}
			sp.warnings = append(sp.warnings, w)
			continue
		}
		for _, f := range facts {
			f.Source = entry + ": " + f.Source
			if err := set(f, RuleCatalog); err != nil {
				return nil, err // the catalog's own tests keep this from happening
			}
		}
	}
	for _, r := range rules {
		if !slices.ContainsFunc(r.inputs, func(k string) bool { return declared[k] }) ||
			slices.ContainsFunc(r.unless, func(k string) bool { return declared[k] }) {
			continue
		}
		for _, o := range r.derive(s) {
			o.Source = r.name + ": " + o.Source
			if err := set(o, RuleDerived); err != nil {
				return nil, err
			}
		}
	}
	s.spec = sp
	if err := s.Validate(); err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			if r := prov[ie.Key]; r.Rule == RuleCatalog || r.Rule == RuleDerived {
				ie.Err = withSource(ie.Err, string(r.Rule)+": "+r.Source)
			}
		}
		return nil, err
	}
	return s, nil
}

// withSource adds where a value came from to its error, when known.
func withSource(err error, source string) error {
	if source == "" {
		return err
	}
	return fmt.Errorf("%w (%s)", err, source)
}

func keyText(s *Scenario, key string) string {
	k, _ := lookupKey(key)
	return k.Text(s)
}

// catalogKeys are the keys that name a catalog entry, and its kind.
var catalogKeys = []struct{ key, kind string }{
	{"gpu.model", "gpu"}, {"nic.model", "nic"}, {"cpu.model", "cpu"}, {"network.switch", "switch"},
}

// ParseSets reads key=value pairs (as --set takes them) into overrides
// with the source given, ready for Apply: the one reader of that grammar.
// A pair without "=" or without a key is an *InputError.
func ParseSets(pairs []string, source string) ([]Override, error) {
	out := make([]Override, 0, len(pairs))
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &InputError{Key: source, Err: fmt.Errorf("%q: expected key=value", kv)}
		}
		out = append(out, Override{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v), Source: source})
	}
	return out, nil
}

// ResolvedYAML writes the scenario as a complete YAML file, every key with
// the rule that gave its value and the source as its comment ("given:
// my.yaml:3", "catalog: A100-SXM4-80GB: NVIDIA A100 datasheet …",
// "derived: nic.kind: …", "preset: preset default: …"): what
// `gpupath preset show --resolved` prints. Parse reads it back as the same
// scenario (every key then given).
func (s *Scenario) ResolvedYAML() []byte {
	d := YAMLDoc{Head: []string{fmt.Sprintf("The scenario %q as gpupath resolves it: every key, with the rule that gave its value (given > catalog > derived > preset) and where the value comes from.", s.Name)}}
	for _, w := range s.Warnings() {
		d.Head = append(d.Head, "Warning: "+w)
	}
	for _, r := range s.Resolution() {
		if !strings.Contains(r.Key, ".") {
			d.Fields = append(d.Fields, YAMLField{Key: r.Key, Value: r.Value, Quote: true})
			continue
		}
		d.Entries = append(d.Entries, YAMLEntry{Key: r.Key, Value: r.Value, Comment: string(r.Rule) + ": " + r.Source})
	}
	var b bytes.Buffer
	_ = WriteYAML(&b, d) // a bytes.Buffer does not fail
	return b.Bytes()
}
