package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/internal/cli"
	"io"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

func init() {
	commands["preset"] = command{usage: "list | show NAME | show --resolved [NAME | --scenario FILE] [--set k=v]... [--format table|json]",
		summary: "list the built-in scenarios, or show one with the source of every value", run: runPreset}
}

func runPreset(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("preset", stdout)
	resolved := fs.Bool("resolved", false, "show: every key as gpupath resolves it, with the rule that gave it (given, catalog, derived, preset) and its source")
	format := fs.Format(cli.Table, cli.JSON)
	var sf scenarioFlags
	sf.register(fs)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("preset: say list or show NAME")
	}
	switch rest[0] {
	case "list":
		if len(rest) > 1 {
			return usagef("preset list takes no argument")
		}
		list, err := model.Presets()
		if err != nil || *format == cli.JSON {
			return errors.Join(err, cli.WriteJSON(stdout, map[string]any{"presets": list}))
		}
		width := 0
		for _, p := range list {
			width = max(width, len(p.Name))
		}
		for _, p := range list {
			fmt.Fprintf(stdout, "%-*s  %s\n", width, p.Name, p.Description)
		}
		return nil
	case "show":
		if len(rest) > 2 {
			return usagef("preset show takes one NAME")
		}
		if *resolved {
			if len(rest) == 2 {
				if sf.file != "" || sf.preset != "" {
					return usagef("preset show --resolved: give a NAME or --scenario/--preset, not both")
				}
				sf.preset = rest[1]
			}
			s, err := sf.resolve(ctx)
			if err != nil {
				return err
			}
			if *format == cli.JSON {
				return cli.WriteJSON(stdout, s.ResolvedJSON())
			}
			_, err = stdout.Write(s.ResolvedYAML())
			return err
		}
		if len(rest) < 2 {
			return usagef("preset show needs a NAME (gpupath preset list)")
		}
		if sf.file != "" || len(sf.sets) > 0 {
			return usagef("preset show: --scenario and --set need --resolved")
		}
		src, err := model.PresetSource(rest[1])
		if err != nil {
			return badInput(err)
		}
		if *format == cli.JSON {
			p, _ := model.Preset(rest[1])
			return cli.WriteJSON(stdout, model.PresetInfo{Name: rest[1], Description: p.Description, Source: string(src)})
		}
		_, err = stdout.Write(src)
		return err
	}
	return usagef("preset: unknown action %q (list or show NAME)", rest[0])
}

func joinNames(n []string) string { return strings.Join(n, ", ") }
