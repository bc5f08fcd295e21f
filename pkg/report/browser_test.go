package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds the browser; the test is skipped, with the reason, only
// when there is none (scripts/test.sh installs Debian's chromium).
func chromium(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		tried = append(tried, name)
	}
	t.Skipf("skipped: no headless browser found (looked for %s on PATH); install the Debian package chromium (scripts/test.sh does)", strings.Join(tried, ", "))
	return ""
}

// pageFacts is what the page says about itself after loading.
type pageFacts struct {
	SVGs    int `json:"svgs"`
	Figures []struct {
		ID   string  `json:"id"`
		X    float64 `json:"x"`
		Y    float64 `json:"y"`
		W    float64 `json:"w"`
		H    float64 `json:"h"`
		Text int     `json:"text"`
	} `json:"figures"`
	ScrollW float64 `json:"scrollW"`
	InnerW  float64 `json:"innerW"`
	Height  float64 `json:"height"`
	Title   string  `json:"title"`
}

const factsJS = `(() => {
  const figs = [];
  document.querySelectorAll('figure.fig svg').forEach(s => {
    const b = s.getBoundingClientRect();
    figs.push({id: s.parentElement.id, x: b.left + window.scrollX, y: b.top + window.scrollY, w: b.width, h: b.height,
      text: s.querySelectorAll('text').length});
  });
  return {svgs: document.querySelectorAll('svg').length, figures: figs,
    scrollW: document.documentElement.scrollWidth, innerW: window.innerWidth,
    height: document.documentElement.scrollHeight, title: document.title};
})()`

// The report opens in headless Chromium with networking disabled: no
// console errors, no failed or outside requests, every figure drawn with a
// size and with ink, nothing wider than the screen — on a desktop and on a
// phone, for a report with made-up measurements and for one calibrated on
// the H200 run. Each figure is captured on its own and must have ink; the
// full-page screenshots and the figures' shots are kept in $GPUPATH_ARTIFACTS.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the headless browser")
	}
	exe := chromium(t)
	type page struct {
		name string
		r    *Report
		url  string
	}
	var pages []page
	for name, in := range map[string]Input{"measured": measuredInput(), "calibrated": calibratedInput(t)} {
		r := render(t, in)
		dir := filepath.Join(t.TempDir(), "report")
		if err := r.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page{name, r, (&url.URL{Scheme: "file", Path: filepath.Join(dir, HTMLFile)}).String()})
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].name > pages[j].name })

	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-component-update", true),
		// No network: every name fails to resolve, every connection goes to a dead proxy.
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
	)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	var (
		mu       sync.Mutex
		problems []string
	)
	report := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	if err := chromedp.Listen(bctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if !strings.HasPrefix(ev.Request.URL, "file://") {
				report("request to %s", ev.Request.URL)
			}
		case *network.EventLoadingFailed:
			report("loading failed: %s %s", ev.ErrorText, ev.BlockedReason)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				report("console.%s", ev.Type)
			}
		case *runtime.EventExceptionThrown:
			report("exception: %s", ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				report("%s: %s (%s)", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
			}
		}
	}); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	if err := chromedp.Do(bctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, log.Enable, cdp.Empty{})
		return err
	})); err != nil {
		t.Logf("enabling the network and log domains: %v", err)
	}

	// A control page that fetches and logs: the listeners must see both, or
	// a clean report would prove nothing.
	bad := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(bad, []byte(`<!doctype html><title>bad</title><img src="http://example.invalid/x.png"><script>console.error("boom")</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate((&url.URL{Scheme: "file", Path: bad}).String())); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		all := strings.Join(problems, "\n")
		mu.Unlock()
		if strings.Contains(all, "request to http://example.invalid/x.png") && strings.Contains(all, "loading failed") && strings.Contains(all, "console.error") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the control page's fetch, its failure and its console error were not all seen; seen:\n%s", all)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	problems = nil
	mu.Unlock()

	for _, pg := range pages {
		r, pageURL := pg.r, pg.url
		for _, vp := range []struct {
			name          string
			width, height int64
			scale         float64
			mobile        bool
		}{
			{"desktop", 1280, 900, 1, false},
			{"phone", 390, 844, 2, true},
		} {
			t.Run(pg.name+"/"+vp.name, func(t *testing.T) {
				eo := []chromedp.EmulateViewportOption{chromedp.EmulateScale(vp.scale)}
				if vp.mobile {
					eo = append(eo, chromedp.EmulateMobile)
				}
				if err := chromedp.Do(bctx, chromedp.EmulateViewport(vp.width, vp.height, eo...), chromedp.Navigate(pageURL)); err != nil {
					t.Fatalf("loading %s: %v", pageURL, err)
				}
				facts, err := chromedp.Run(bctx, chromedp.Evaluate[pageFacts](factsJS))
				if err != nil {
					t.Fatal(err)
				}
				// The whole page is captured only when someone will look at
				// it (GPUPATH_ARTIFACTS): Chromium's PNG of a 118,000-pixel
				// phone page took 16 s of this test's 47. Every figure is
				// captured on its own below, which is what the ink check needs.
				if d := artifacts(t); d != "" {
					shot, err := chromedp.Run(bctx, fullPage(vp.scale))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(d, "screenshot.png"), shot, 0o644); err != nil {
						t.Fatal(err)
					}
					img, err := png.Decode(bytes.NewReader(shot))
					if err != nil {
						t.Fatalf("screenshot: %v", err)
					}
					if b := img.Bounds(); float64(b.Dy()) < facts.Height*vp.scale*0.98 {
						t.Errorf("the screenshot is %d px high; the page %v px", b.Dy(), facts.Height*vp.scale)
					}
				}
				if !strings.HasPrefix(facts.Title, "GPU-to-GPU data paths") {
					t.Errorf("title %q", facts.Title)
				}
				if facts.SVGs != len(r.Figures) || len(facts.Figures) != len(r.Figures) {
					t.Errorf("%d svg elements, %d in figures, for %d figures", facts.SVGs, len(facts.Figures), len(r.Figures))
				}
				if facts.ScrollW > facts.InnerW+1 {
					t.Errorf("the page is %v px wide on a %v px screen: it scrolls sideways", facts.ScrollW, facts.InnerW)
				}
				for _, f := range facts.Figures {
					if f.W < 100 || f.H < 60 || f.W > facts.InnerW {
						t.Errorf("%s is drawn %v×%v px on a %v px screen", f.ID, f.W, f.H, facts.InnerW)
					}
					if f.Text == 0 {
						t.Errorf("%s has no text", f.ID)
					}
					clip, err := chromedp.Run(bctx, viewShot(f.X, f.Y, f.W, f.H))
					var img image.Image
					if err == nil {
						img, err = png.Decode(bytes.NewReader(clip))
					}
					if err != nil {
						t.Fatalf("%s: screenshot of the figure: %v", f.ID, err)
					}
					if d := artifacts(t); d != "" {
						if err := os.WriteFile(filepath.Join(d, f.ID+".png"), clip, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					if ink := inkOf(img, img.Bounds()); ink < 0.01 {
						t.Errorf("%s looks blank in a screenshot of it (%.4f of its pixels have ink, at %.0f,%.0f)", f.ID, ink, f.X, f.Y)
					}
				}
			})
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("browser: %s", p)
	}
}

// fullPage takes a screenshot of the whole page, beyond the viewport.
func fullPage(scale float64) chromedp.Action[[]byte] {
	return func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		m, err := chromedp.Call(ctx, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		size := m.CSSContentSize
		r, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			CaptureBeyondViewport: ptr(true),
			FromSurface:           ptr(true),
			Clip:                  &page.Viewport{X: 0, Y: 0, Width: size.Width, Height: size.Height, Scale: 1},
		})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}

// viewShot scrolls a region (CSS pixels, document coordinates) into the
// viewport and captures it there. Capturing beyond the viewport resizes the
// page's surface for every shot (0.2–0.7 s each, 17 figures a page).
func viewShot(x, y, w, h float64) chromedp.Action[[]byte] {
	return func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](fmt.Sprintf("window.scrollTo(0, %f); null", max(0, y-8)))); err != nil {
			return nil, err
		}
		r, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format: page.CaptureScreenshotFormatPng,
			Clip:   &page.Viewport{X: x, Y: y, Width: w, Height: h, Scale: 1},
		})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}

func ptr[T any](v T) *T { return &v }

func inkOf(img image.Image, r image.Rectangle) float64 {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return 0
	}
	ink := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				ink++
			}
		}
	}
	return float64(ink) / float64(r.Dx()*r.Dy())
}
