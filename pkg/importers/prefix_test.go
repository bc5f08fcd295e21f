package importers

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// stacks are the prefixes launchers, log collectors and terminals put in
// front of every line, alone and stacked (outermost first).
var stacks = []struct {
	name string
	wrap func(i int, l string) string
	// hosts are the hosts the prefixes name: an output that names none
	// is given them.
	hosts []string
}{
	{"open-mpi-tag-output", func(i int, l string) string { return "[1,0]<stdout>:" + l }, nil},
	{"srun-label", func(i int, l string) string { return "0: " + l }, nil},
	{"pdsh", func(i int, l string) string { return []string{"gpu-a17: ", "gpu-a18: "}[i%2] + l }, []string{"gpu-a17", "gpu-a18"}},
	{"kubectl-timestamps", func(i int, l string) string { return "2026-12-01T10:00:00.123456789Z " + l }, nil},
	{"kubectl-prefix+tag-output", func(i int, l string) string { return "[pod/nccl-test-0/worker] [1,0]<stdout>:" + l }, []string{"nccl-test-0"}},
	{"timestamp+pdsh+tag-output", func(i int, l string) string { return "2026-12-01 10:00:00,123 node-7: [1,1]<stdout>: " + l }, []string{"node-7"}},
	{"syslog+srun-label", func(i int, l string) string { return "Dec  1 10:00:00 node-7 slurmstepd[42]: 1: " + l }, []string{"node-7"}},
	{"ansi-colour", func(i int, l string) string { return "\x1b[32m" + l + "\x1b[0m" }, nil},
	{"torchrun", func(i int, l string) string { return "[default0]:" + l }, nil},
}

// comparable is an output without its notes (the stripper adds one).
func comparable(f *File) []obs.Output {
	var out []obs.Output
	for _, o := range f.Outputs {
		c := *o
		c.Notes, c.Sink = nil, nil
		out = append(out, c)
	}
	return out
}

// Every fixture, behind every prefix stack and with LF or CRLF line ends,
// gives the same outputs as the fixture itself: the same records (their
// lines and fields too), hardware, channels, failures and problems; and
// the import says which prefixes it removed.
func TestPrefixStacks(t *testing.T) {
	for _, p := range append(fixtureFiles(t), publishedFiles(t)...) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(fixtureDir, p)
		want, err := ParseFile(p, bytes.Clone(raw), "")
		if err != nil {
			continue // the files refused as a whole are refused behind prefixes too (TestFixtures)
		}
		// The import of the plain file is its format's own parse of it: the
		// stripper takes nothing the parser reads (Intel MPI's "[0] " tags).
		fm, _ := Detect(raw)
		direct, err := fm.Parse(filepath.Base(p), bytes.Clone(raw))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		plain := *want.Outputs[0]
		plain.Notes, direct.Notes = nil, nil
		if !reflect.DeepEqual(plain, *direct) {
			t.Errorf("%s: the import differs from %s's own parse of the plain file (hosts %v vs %v, %d vs %d records)", rel, fm.Name, plain.Hardware.Hosts, direct.Hardware.Hosts, len(plain.Records), len(direct.Records))
		}
		lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		for _, st := range stacks {
			for _, crlf := range []bool{false, true} {
				var b strings.Builder
				for i, l := range lines {
					cr := strings.HasSuffix(l, "\r")
					l = strings.TrimSuffix(l, "\r")
					b.WriteString(st.wrap(i, l))
					if cr || crlf {
						b.WriteByte('\r')
					}
					b.WriteByte('\n')
				}
				got, err := ParseFile(p, []byte(b.String()), "")
				if err != nil {
					t.Errorf("%s behind %s (crlf %v): %v", rel, st.name, crlf, err)
					continue
				}
				g, w := comparable(got), comparable(want)
				if len(w[0].Hardware.Hosts) == 0 && st.hosts != nil {
					// An output that names no host is given the prefixes'.
					if !reflect.DeepEqual(g[0].Hardware.Hosts, st.hosts) {
						t.Errorf("%s behind %s: hosts %v, want the prefixes' %v", rel, st.name, g[0].Hardware.Hosts, st.hosts)
					}
					g[0].Hardware.Hosts, g[0].Hardware.Lines = nil, w[0].Hardware.Lines
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s behind %s (crlf %v): outputs differ: %d vs %d records", rel, st.name, crlf, len(g[0].Records), len(w[0].Records))
					continue
				}
				if n := strings.Join(got.Outputs[0].Notes, "\n"); !strings.Contains(n, "removed from the lines before reading them") {
					t.Errorf("%s behind %s: no note of the prefixes removed: %q", rel, st.name, n)
				}
			}
		}
	}
}

// Outputs without prefixes are left as they are: of the fixtures, only
// the coloured nvidia-smi listing loses something (its escapes), and the
// Intel MPI outputs their "[0] " rank tags; nothing else is taken for a
// prefix.
func TestNoPrefixInFixtures(t *testing.T) {
	want := map[string]string{
		"nvidia-smi-topo/h200x8-nv18-10nic-ansi-underline.txt":  "ANSI colour and cursor escapes",
		"osu/pkb-osu_bibw-v5.7.1-intelmpi-debug-trimmed.txt":    "MPI rank tags",
		"osu/pkb-osu_bw-v5.7.1-intelmpi-debug-trimmed.txt":      "MPI rank tags",
		"osu/pkb-osu_latency-v5.7.1-intelmpi-debug-trimmed.txt": "MPI rank tags",
	}
	for _, p := range fixtureFiles(t) {
		raw, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(fixtureDir, p)
		_, removed, _ := stripPrefixes(bytes.Clone(raw))
		if got := strings.Join(removed, ", "); got != want[filepath.ToSlash(rel)] {
			t.Errorf("%s: removed %q, want %q", rel, got, want[rel])
		}
	}
}

// The stripper never lengthens a file, never changes its number of lines
// and leaves no ANSI escape.
func FuzzStripPrefixes(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", "[1,0]<stdout>:# x\n[1,0]<stdout>:1 2\n", "0: a\n0: b\r\n", "\x1b[31mred\x1b[0m\n",
		"node-1: x\nnode-2: y\n", "2026-12-01T10:00:00Z a\n2026-12-01T10:00:01Z b\n", "\x1b]0;t\x07x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _, _ := stripPrefixes([]byte(s))
		if len(out) > len(s) || bytes.Count(out, []byte("\n")) != strings.Count(s, "\n") {
			t.Fatalf("%q → %q", s, out)
		}
		if ansiRe.Match(out) && !ansiRe.MatchString(s) {
			t.Fatalf("an escape made: %q → %q", s, out)
		}
	})
}

// Every fixture with carriage returns for line ends (no line feed at all),
// and with each line rewritten by a carriage return inside it (a progress
// line the terminal overwrote), gives the same outputs as the fixture, and
// the import notes what it read so.
func TestCarriageReturns(t *testing.T) {
	for _, p := range append(fixtureFiles(t), publishedFiles(t)...) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(fixtureDir, p)
		want, err := ParseFile(p, bytes.Clone(raw), "")
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n"), "\n")
		for _, mode := range []string{"CR", "progress", "CRCRLF"} {
			var b strings.Builder
			for _, l := range lines {
				switch mode {
				case "CR":
					b.WriteString(l + "\r")
				case "progress": // an empty line would show the progress text
					if strings.TrimSpace(l) != "" {
						b.WriteString("  42% [=====>      ] 1.2 GB/s\r")
					}
					b.WriteString(l + "\n")
				case "CRCRLF":
					b.WriteString(l + "\r\r\n")
				}
			}
			got, err := ParseFile(p, []byte(b.String()), "")
			if err != nil {
				t.Errorf("%s with %s line ends: %v", rel, mode, err)
				continue
			}
			if !reflect.DeepEqual(comparable(got), comparable(want)) {
				g, w := comparable(got), comparable(want)
				t.Errorf("%s with %s line ends: outputs differ: %d vs %d records, %v vs %v problems", rel, mode, len(g[0].Records), len(w[0].Records), g[0].Problems, w[0].Problems)
				continue
			}
			if n := strings.Join(got.Outputs[0].Notes, "\n"); mode != "CRCRLF" && !strings.Contains(n, "carriage returns") {
				t.Errorf("%s with %s line ends: no note of it: %q", rel, mode, n)
			}
		}
	}
}

// A recognized output with no result row and nothing said of why is a
// problem, never an import that is "ok" with nothing in it.
func TestNoResultIsAProblem(t *testing.T) {
	head := "+--------------+--------------+------------------------------+---------------------+-----------------------+\n" +
		"|              |              |        latency (usec)        |   bandwidth (MB/s)  |  message rate (msg/s) |\n" +
		"+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+\n" +
		"|    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |  average  |  overall  |\n" +
		"+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+\n"
	f, err := ParseFile("u.txt", []byte("$ ucx_perftest h -t tag_lat\n"+head), "")
	if err != nil {
		t.Fatal(err)
	}
	if pr := f.Outputs[0].Problems; f.Records() != 0 || len(pr) != 1 || !strings.Contains(pr[0].Reason, "no result") || pr[0].Line != 7 {
		t.Fatalf("records %d, problems %+v", f.Records(), pr)
	}
}

// Line ends made line feeds never lengthen a file or change its number of
// lines, and leave no carriage return but one before a line feed.
func FuzzCarriageReturns(f *testing.F) {
	for _, s := range []string{"", "a\rb\r", "a\r\nb\n", "x\r\r\n", "10%\r20%\rrow 1\n", "\r\n\r", "a\rb\nc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, _ := carriageReturns([]byte(s))
		lines := strings.Count(s, "\n")
		if lines == 0 {
			lines = strings.Count(s, "\r")
		}
		if len(out) > len(s) || bytes.Count(out, []byte("\n")) != lines {
			t.Fatalf("%q → %q", s, out)
		}
		if bytes.Contains(out, []byte("\r\r")) || bytes.Count(out, []byte("\r")) != bytes.Count(out, []byte("\r\n")) {
			t.Fatalf("a carriage return left inside a line: %q → %q", s, out)
		}
	})
}

// Every fixture saved with a UTF-8 byte-order mark, or as UTF-16 with its
// mark (PowerShell's Out-File), gives the same outputs, and the import
// notes it.
func TestByteOrderMarks(t *testing.T) {
	for _, p := range append(fixtureFiles(t), publishedFiles(t)...) {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(fixtureDir, p)
		want, err := ParseFile(p, bytes.Clone(raw), "")
		if err != nil {
			continue
		}
		u := utf16.Encode([]rune(string(raw)))
		le, be := []byte{0xff, 0xfe}, []byte{0xfe, 0xff}
		for _, c := range u {
			le = append(le, byte(c), byte(c>>8))
			be = append(be, byte(c>>8), byte(c))
		}
		for name, b := range map[string][]byte{"UTF-8 BOM": append([]byte{0xef, 0xbb, 0xbf}, raw...), "UTF-16LE": le, "UTF-16BE": be} {
			got, err := ParseFile(p, b, "")
			if err != nil {
				t.Errorf("%s as %s: %v", rel, name, err)
				continue
			}
			if !reflect.DeepEqual(comparable(got), comparable(want)) {
				t.Errorf("%s as %s: outputs differ", rel, name)
			}
			if n := strings.Join(got.Outputs[0].Notes, "\n"); !strings.Contains(n, "byte-order mark") {
				t.Errorf("%s as %s: no note of it", rel, name)
			}
		}
	}
}
