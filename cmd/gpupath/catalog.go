package main

import (
	"context"
	"github.com/gpupath/gpupath/internal/cli"
	"github.com/gpupath/gpupath/internal/termtext"
	"io"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

func init() {
	commands["catalog"] = command{usage: "list [--kind K] | show NAME [--kind K] [--format table|json]",
		summary: "list the hardware catalog (GPUs, NICs, CPUs, switches, InfiniBand generations), or show one entry: every fact with its source", run: runCatalog}
}

func runCatalog(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("catalog", stdout)
	kindFlag := fs.String("kind", "", "only this kind: "+strings.Join(model.CatalogKinds, ", "))
	format := fs.Format(cli.Table, cli.JSON)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return usagef("catalog: say list or show NAME")
	}
	// The name may be several words (catalog show ConnectX-7 NDR).
	action, words := rest[0], rest[1:]
	kind := ""
	if *kindFlag != "" {
		k, err := model.ParseCatalogKind(*kindFlag)
		if err != nil {
			return usagef("--kind: %v", err)
		}
		kind = k
	}
	if err := model.CheckCatalog(); err != nil {
		return err
	}
	switch action {
	case "list":
		if len(words) > 0 {
			return usagef("catalog list takes no argument (catalog show %s)", strings.Join(words, " "))
		}
		entries := model.Catalog(kind)
		if *format == "json" {
			return model.WriteCatalogJSON(termtext.NewJSONWriter(stdout), entries)
		}
		return model.WriteCatalogList(stdout, entries)
	case "show":
		name := strings.Join(words, " ")
		if strings.TrimSpace(name) == "" {
			return usagef("catalog show needs a NAME (gpupath catalog list)")
		}
		e, ok := model.LookupCatalog(kind, name)
		if !ok {
			return unknownCatalogName(kind, name)
		}
		if *format == "json" {
			return model.WriteCatalogJSON(termtext.NewJSONWriter(stdout), e)
		}
		return model.WriteCatalogEntry(stdout, e)
	}
	return usagef("catalog: unknown action %q (list or show NAME)", action)
}

// unknownCatalogName is the one line for a name the catalog does not know:
// the near names, or where to look.
func unknownCatalogName(kind, name string) error {
	what := "catalog entry"
	if kind != "" {
		what = kind + " entry"
	}
	if near := model.NearCatalogNames(kind, name); len(near) > 0 {
		return usagef("catalog show: no %s is named %q (near: %s)", what, name, strings.Join(near, ", "))
	}
	return usagef("catalog show: no %s is named %q (gpupath catalog list lists them)", what, name)
}
