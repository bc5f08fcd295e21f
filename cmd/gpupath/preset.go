package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

func init() {
	commands["preset"] = command{summary: "list the built-in scenarios, or show one with the source of every value", run: runPreset}
}

func runPreset(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("preset list | show NAME", stdout)
	resolved := fs.Bool("resolved", false, "show: print the scenario as gpupath reads it (every key, no sources)")
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usagef("preset: say list or show NAME")
	}
	switch rest[0] {
	case "list":
		if len(rest) > 1 {
			return usagef("preset list takes no argument")
		}
		names := model.PresetNames()
		width := 0
		for _, n := range names {
			width = max(width, len(n))
		}
		for _, n := range names {
			s, err := model.Preset(n)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%-*s  %s\n", width, n, s.Description)
		}
		return nil
	case "show":
		// flags may follow the name: preset show NAME --resolved
		if len(rest) > 2 {
			if err := parseFlags(fs, rest[2:], false); err != nil {
				return err
			}
		}
		if len(rest) < 2 {
			return usagef("preset show needs a NAME (gpupath preset list)")
		}
		if *resolved {
			s, err := model.Preset(rest[1])
			if err != nil {
				return badInput(err)
			}
			_, err = stdout.Write(s.YAML())
			return err
		}
		src, err := model.PresetSource(rest[1])
		if err != nil {
			return badInput(err)
		}
		_, err = stdout.Write(src)
		return err
	}
	return usagef("preset: unknown action %q (list or show NAME)", rest[0])
}

func joinNames(n []string) string { return strings.Join(n, ", ") }
