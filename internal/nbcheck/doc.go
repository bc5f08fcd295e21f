// Package nbcheck executes the project's GoNB notebooks headless and judges
// the executed result.
//
// `jupyter nbconvert --execute` exits 0 when a GoNB cell panics, calls
// os.Exit or runs a failing shell command (ENVIRONMENT.md): only compile
// errors stop it. So the executed notebook itself is read back and checked:
// Check reports error outputs, "panic:" on stderr, "exit status N" lines,
// code cells without output, cells longer than MaxLines, a kernel other than
// gonb, and numbers typed by hand in Markdown cells. Execute runs nbconvert
// for one notebook; Render opens the executed HTML in headless Chromium and
// measures every figure.
//
// The package runs programs (nbconvert, chromium) but prints nothing: the
// command cmd/nbcheck reports.
package nbcheck
