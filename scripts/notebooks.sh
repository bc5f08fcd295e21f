#!/usr/bin/env bash
# Notebooks: installs Jupyter's nbconvert (Debian), builds GoNB v0.11.1 and
# goimports from tools/go.mod into bin/, installs the gonb kernel into
# .jupyter/ inside the checkout, executes every notebooks/*.ipynb headless
# into reports/notebooks/ (the executed .ipynb, its .html, the kernel's .log
# and a .png screenshot of the HTML in headless Chromium), and fails when any
# notebook fails (cmd/nbcheck: error outputs, panics, "exit status N", cells
# without output or longer than 15 lines, numbers typed in Markdown, figures
# the HTML does not show) or when they take longer than NOTEBOOK_BUDGET
# (default 180s) together. Last, it executes notebooks/testdata/failing.ipynb
# and fails unless the check catches each of its failures.
#
# Called by scripts/test.sh; runs alone too: bash scripts/notebooks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
budget=${NOTEBOOK_BUDGET:-180s}

say() { printf '\n== %s\n' "$*"; }

# --- system packages: nbconvert (brings nbclient and jupyter_client), Chromium, fonts
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3 # Debian's, where apt installs nbconvert (not a pyenv shim)
need=()
"$py" -c 'import nbconvert, nbclient, jupyter_client' 2>/dev/null || need+=(jupyter-nbconvert)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
[ -e /usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf ] || need+=(fonts-liberation2)
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  py=/usr/bin/python3
fi
"$py" -m nbconvert --version | sed 's/^/nbconvert /'

# --- GoNB and goimports, pinned in tools/go.mod (go install gonb@v0.11.1 fails: ENVIRONMENT.md)
if [ ! -x bin/gonb ] || [ ! -x bin/goimports ] || [ tools/go.mod -nt bin/gonb ] || [ tools/go.sum -nt bin/gonb ]; then
  say "build GoNB and goimports (tools/go.mod) into bin/"
  mkdir -p bin
  (cd tools && go build -o "$root/bin/" github.com/janpfeifer/gonb golang.org/x/tools/cmd/goimports)
  touch bin/gonb bin/goimports
fi
export PATH="$root/bin:$PATH" # the kernel runs goimports
export JUPYTER_DATA_DIR="$root/.jupyter"

say "install the gonb kernel into .jupyter/"
bin/gonb --install --raw_error --force_deps 2>&1 | grep -i 'installed in' || true
test -f .jupyter/kernels/gonb/kernel.json

say "build the packages the notebooks import (warms the build cache), and nbcheck"
go build ./...
go build -o bin/nbcheck ./cmd/nbcheck

say "execute and check notebooks/*.ipynb (budget $budget)"
rm -rf reports/notebooks
bin/nbcheck -exec -render -python "$py" -out reports/notebooks -budget "$budget" notebooks/*.ipynb

say "the check catches every failure of notebooks/testdata/failing.ipynb"
bin/nbcheck -exec -render -python "$py" -out reports/notebooks/testdata \
  -expect panic,exit-status,error,no-output,long-cell,hand-number,figure notebooks/testdata/failing.ipynb
