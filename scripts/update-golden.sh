#!/usr/bin/env bash
# Rewrites the golden files of the module: `go test -update` in every
# package whose tests use internal/golden (`go test ./... -update` fails
# in the packages that have no golden test: their test binaries do not know
# the flag). With -fixtures it passes -update-fixtures instead, which
# rewrites the fixture trees generated from the tests' specs (pkg/topo's
# sysfs archives, pkg/doctor's trees). Look at `git diff` afterwards: a
# changed golden file is a change in what the code produces.
#
# Usage:  scripts/update-golden.sh [-fixtures] [go test flags, e.g. -run Golden]
set -euo pipefail
cd "$(dirname "$0")/.."
flag=-update
if [ "${1:-}" = -fixtures ]; then
  flag=-update-fixtures
  shift
fi
pkgs=$(go list -test -f '{{if .ForTest}}{{.ForTest}}{{range .Deps}} {{.}}{{end}}{{end}}' ./... |
  awk '{ for (i = 2; i <= NF; i++) if ($i == "github.com/gpupath/gpupath/internal/golden") { print $1; break } }' | sort -u)
# shellcheck disable=SC2086 # one word per package
go test -count=1 "$@" $pkgs "$flag"
