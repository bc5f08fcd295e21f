package model

import (
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:embed presets/*.yaml
var presetFS embed.FS

var (
	presetOnce sync.Once
	presets    map[string]*Scenario
	presetText map[string][]byte
	presetErr  error
)

func loadPresets() {
	presets = map[string]*Scenario{}
	presetText = map[string][]byte{}
	entries, err := presetFS.ReadDir("presets")
	if err != nil {
		presetErr = err
		return
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yaml")
		data, err := presetFS.ReadFile("presets/" + e.Name())
		if err != nil {
			presetErr = err
			return
		}
		s, err := parsePreset(data, name)
		if err != nil {
			presetErr = err
			return
		}
		if s.Name != name {
			presetErr = fmt.Errorf("preset %s: name is %q", name, s.Name)
			return
		}
		presets[name] = s
		presetText[name] = data
	}
}

// PresetNames lists the built-in presets, "default" first, then sorted.
func PresetNames() []string {
	presetOnce.Do(loadPresets)
	var names []string
	for n := range presets {
		if n != "default" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if _, ok := presets["default"]; ok {
		names = append([]string{"default"}, names...)
	}
	return names
}

// presetOf is the named built-in scenario itself (not a copy: callers clone).
func presetOf(name string) (*Scenario, error) {
	presetOnce.Do(loadPresets)
	if presetErr != nil {
		return nil, presetErr
	}
	s, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("unknown preset %q (presets: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return s, nil
}

// Preset returns a copy of the named built-in scenario.
func Preset(name string) (*Scenario, error) {
	presetOnce.Do(loadPresets)
	if presetErr != nil {
		return nil, presetErr
	}
	s, ok := presets[name]
	if !ok {
		return nil, fmt.Errorf("unknown preset %q (presets: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return s.Clone(), nil
}

// PresetSource returns the YAML text of a preset, with the comments that
// give each value's source.
func PresetSource(name string) ([]byte, error) {
	if _, err := Preset(name); err != nil {
		return nil, err
	}
	return append([]byte(nil), presetText[name]...), nil
}

// Default returns the scenario every command uses when none is named.
func Default() *Scenario {
	s, err := Preset("default")
	if err != nil {
		panic("model: built-in presets are broken: " + err.Error()) // caught by TestPresets
	}
	return s
}

// PresetInfo is one preset in the JSON of `gpupath preset list` and
// `gpupath preset show NAME` (Source only there: the YAML text with the
// comments that cite each value).
type PresetInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Source      string `json:"source,omitempty"`
}

// Presets lists the built-in presets in the order of PresetNames.
func Presets() ([]PresetInfo, error) {
	var out []PresetInfo
	for _, n := range PresetNames() {
		s, err := Preset(n)
		if err != nil {
			return nil, err
		}
		out = append(out, PresetInfo{Name: n, Description: s.Description})
	}
	return out, nil
}
