package nbcheck

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Figure is one top-level <svg> element of a rendered page, in CSS pixels.
type Figure struct {
	Width  float64 `json:"w"`
	Height float64 `json:"h"`
}

// Page is an HTML file as headless Chromium rendered it.
type Page struct {
	HTML       string
	Figures    []Figure
	Screenshot []byte // full page, PNG
}

// Renderer opens HTML files in headless Chromium.
type Renderer struct {
	// Chrome is the browser executable; empty: chromedp looks for
	// chromium, chromium-browser, google-chrome on the PATH.
	Chrome string
	// Width of the window in CSS pixels (1200 when 0).
	Width int
	// Timeout for one page (60 s when 0).
	Timeout time.Duration
}

// figuresJS measures every <svg> that is not inside another one.
const figuresJS = `[...document.querySelectorAll('svg')]
	.filter(s => !(s.parentElement && s.parentElement.closest('svg')))
	.map(s => { const r = s.getBoundingClientRect(); return {w: r.width, h: r.height}; })`

// Render opens each HTML file with the network cut off (an executed
// notebook must show its figures without fetching anything), measures its
// figures and takes a full-page screenshot.
func (r Renderer) Render(ctx context.Context, paths ...string) ([]Page, error) {
	width := r.Width
	if width <= 0 {
		width = 1200
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	profile, err := os.MkdirTemp("", "nbcheck-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.Flag("no-sandbox", true), // CI runs as root
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"), // no network
		chromedp.WindowSize(width, 900),
		chromedp.UserDataDir(profile))
	if r.Chrome != "" {
		opts = append(opts, chromedp.ExecPath(r.Chrome))
	}
	actx, cancel := chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil { // start the browser
		return nil, fmt.Errorf("starting headless chromium: %w", err)
	}
	var pages []Page
	for _, p := range paths {
		page, err := r.render(bctx, p, width, timeout)
		if err != nil {
			return pages, err
		}
		pages = append(pages, page)
	}
	return pages, nil
}

func (r Renderer) render(bctx context.Context, path string, width int, timeout time.Duration) (Page, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Page{}, err
	}
	if _, err := os.Stat(abs); err != nil {
		return Page{}, err
	}
	tctx, cancel := chromedp.NewContext(bctx) // a tab of its own
	defer cancel()
	if err := chromedp.Do(tctx); err != nil {
		return Page{}, err
	}
	ctx, cancel := context.WithTimeout(tctx, timeout)
	defer cancel()
	u := url.URL{Scheme: "file", Path: abs}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), 900), chromedp.Navigate(u.String())); err != nil {
		return Page{}, fmt.Errorf("%s: %w", path, err)
	}
	figs, err := chromedp.Run(ctx, chromedp.Evaluate[[]Figure](figuresJS))
	if err != nil {
		return Page{}, fmt.Errorf("%s: measuring figures: %w", path, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return Page{}, fmt.Errorf("%s: screenshot: %w", path, err)
	}
	return Page{HTML: path, Figures: figs, Screenshot: shot}, nil
}

// Figures counts the figures an executed notebook displays: the top-level
// <svg> elements in its HTML and SVG outputs.
func Figures(nb *Notebook) int {
	n := 0
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			for mime, t := range o.Data {
				if mime == "text/html" || mime == "image/svg+xml" {
					n += topSVGs(string(t))
				}
			}
		}
	}
	return n
}

// topSVGs counts <svg> elements that are not nested in another.
func topSVGs(s string) int {
	n, depth := 0, 0
	for {
		open := strings.Index(s, "<svg")
		closing := strings.Index(s, "</svg")
		switch {
		case open < 0 && closing < 0:
			return n
		case open >= 0 && (closing < 0 || open < closing):
			if depth == 0 {
				n++
			}
			s = s[open+4:]
			end := strings.IndexByte(s, '>')
			if end < 0 {
				return n
			}
			if !strings.HasSuffix(s[:end], "/") { // <svg/> closes itself
				depth++
			}
			s = s[end+1:]
		default:
			depth = max(depth-1, 0)
			s = s[closing+5:]
		}
	}
}

// CheckPage reports a page that shows fewer figures than its notebook
// displays, or a figure of zero size.
func CheckPage(p Page, want int, name string) []Finding {
	var out []Finding
	shown := 0
	for i, f := range p.Figures {
		if f.Width >= 1 && f.Height >= 1 {
			shown++
			continue
		}
		out = append(out, Finding{Notebook: name, Kind: FigureKind,
			Detail: fmt.Sprintf("figure %d renders %.0f×%.0f px", i+1, f.Width, f.Height)})
	}
	if shown < want {
		out = append(out, Finding{Notebook: name, Kind: FigureKind,
			Detail: fmt.Sprintf("the HTML shows %d figures, the notebook displays %d", shown, want)})
	}
	return out
}
