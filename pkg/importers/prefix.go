package importers

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"
)

// Outputs as they come out of launchers, log collectors and terminals: each
// line behind one or more prefixes (a log's timestamp, then a pod's name,
// then Open MPI's rank tag), coloured with ANSI escapes. Before a file is
// detected and parsed, the prefixes that stand in front of most of its lines
// are found, outermost first, and removed from every line that carries
// them; the ANSI escapes are removed wherever they are. Lines keep their
// numbers (only their beginnings go), so every record still names the
// line of the file it came from.

// linePrefix is one kind of prefix.
type linePrefix struct {
	name string
	re   *regexp.Regexp // anchored at the line's start; the whole match is removed
	// share is the part of the non-empty lines that must carry it;
	// hostLike prefixes (a word and a colon) also need few distinct words
	// (at most 16), so that a listing of "key: value" lines is not taken for
	// pdsh's output.
	share    float64
	hostLike bool
	// host is the submatch of re that names the host or pod a line
	// came from (pdsh's host, kubectl's pod); 0 when the prefix names none.
	host int
}

var linePrefixes = []linePrefix{
	// 2026-12-01T10:00:00.123456789Z (kubectl logs --timestamps, journald
	// short-iso, Docker), 2026-12-01 10:00:00,123 (Python logging), with
	// an optional zone; optionally in brackets.
	{name: "timestamps", re: regexp.MustCompile(`^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?(?: |$)`), share: 0.5},
	// Dec  1 10:00:00 host (syslog), or without the host.
	{name: "syslog timestamps", re: regexp.MustCompile(`^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?: ([\w.-]+))?(?: [\w./-]+(?:\[\d+\])?:)? `), share: 0.5, host: 1},
	// [pod/nccl-test-0/worker] (kubectl logs --prefix).
	{name: "kubectl pod prefixes", re: regexp.MustCompile(`^\[pod/([^\]\s/]+)(?:/[^\]\s]*)?\] ?`), share: 0.5, host: 1},
	// [1,0]<stdout>: (Open MPI --tag-output), [1,0]<stderr>:.
	{name: "Open MPI --tag-output tags", re: regexp.MustCompile(`^\[\d+,\d+\]<std(?:out|err)>: ?`), share: 0.3},
	// [0] or [0,1] rank tags of MPICH/Hydra -prepend-rank, Intel MPI -l.
	{name: "MPI rank tags", re: regexp.MustCompile(`^\[\d+\] `), share: 0.5},
	// 0: (srun --label, torchrun --tee's [default0]: too).
	{name: "srun --label tags", re: regexp.MustCompile(`^ *\d+: `), share: 0.5},
	{name: "torchrun rank tags", re: regexp.MustCompile(`^\[default\d+\]:`), share: 0.5},
	// node17: (pdsh, clush): a host name with a digit, a dot or a hyphen in
	// it (gpu-a01, node17, n1.cluster), so that a tool's own "sockperf: "
	// before its lines is not taken for one.
	{name: "pdsh host prefixes", re: regexp.MustCompile(`^([A-Za-z][\w.-]*[\d.-][\w.-]*): `), share: 0.9, hostLike: true, host: 1},
}

// ansiRe is an ANSI escape sequence: CSI (colours, cursor moves) and OSC
// (window titles), as terminals and coloured loggers write them.
var ansiRe = regexp.MustCompile("\x1b(?:\\[[0-?]*[ -/]*[@-~]|\\][^\x07\x1b]*(?:\x07|\x1b\\\\)|[@-Z\\\\-_])")

// prefixHead is how many lines the prefixes are looked for in.
const prefixHead = 4000

// maxPrefixHosts bounds the hosts the prefixes of one file name.
const maxPrefixHosts = 64

// stripPrefixes removes, in place, the stack of prefixes that most lines
// of b carry and every ANSI escape; it returns b shortened, the names of
// what it removed, outermost first ("" when nothing), and the hosts the
// removed prefixes named (pdsh's host, kubectl's pod), in the order first
// seen, at most maxPrefixHosts. CRLF line ends are kept as they are.
func stripPrefixes(b []byte) ([]byte, []string, []string) {
	var removed, hosts []string
	if bytes.IndexByte(b, 0x1b) >= 0 {
		b = ansiRe.ReplaceAll(b, nil)
		removed = append(removed, "ANSI colour and cursor escapes")
	}
	stack := prefixStack(b)
	if len(stack) == 0 {
		return b, removed, nil
	}
	for _, p := range stack {
		removed = append(removed, p.name)
	}
	w := 0
	for r := 0; r < len(b); {
		end := bytes.IndexByte(b[r:], '\n')
		next := len(b)
		if end >= 0 {
			end += r
			next = end + 1
		} else {
			end = len(b)
		}
		start := r
		for _, p := range stack {
			if loc := p.re.FindSubmatchIndex(b[start:end]); loc != nil {
				if h := p.host; h > 0 && loc[2*h] >= 0 && len(hosts) < maxPrefixHosts {
					if name := string(b[start+loc[2*h] : start+loc[2*h+1]]); !slices.Contains(hosts, name) {
						hosts = append(hosts, name)
					}
				}
				start += loc[1]
			}
		}
		w += copy(b[w:], b[start:next])
		r = next
	}
	return b[:w], removed, hosts
}

// prefixStack finds the prefixes of b's first lines, outermost first: at
// each step the first kind that enough of the lines (with the prefixes
// found so far removed) carry; at most four.
func prefixStack(b []byte) []linePrefix {
	var lines [][]byte
	for r := 0; r < len(b) && len(lines) < prefixHead; {
		end := bytes.IndexByte(b[r:], '\n')
		next := len(b)
		if end >= 0 {
			next = r + end + 1
		}
		if l := bytes.TrimRight(b[r:next], "\r\n"); len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
		r = next
	}
	if len(lines) < 2 {
		return nil
	}
	var stack []linePrefix
	used := map[string]bool{}
	for len(stack) < 4 {
		found := false
		for _, p := range linePrefixes {
			if used[p.name] || !carried(p, lines) {
				continue
			}
			for i, l := range lines {
				if loc := p.re.FindIndex(l); loc != nil {
					lines[i] = l[loc[1]:]
				}
			}
			stack = append(stack, p)
			used[p.name] = true
			found = true
			break
		}
		if !found {
			break
		}
	}
	return stack
}

// carried tells whether enough of lines carry p.
func carried(p linePrefix, lines [][]byte) bool {
	n := 0
	words := map[string]int{}
	for _, l := range lines {
		if loc := p.re.FindIndex(l); loc != nil {
			n++
			if p.hostLike {
				words[string(l[:loc[1]])]++
			}
		}
	}
	if n < 2 || float64(n) < p.share*float64(len(lines)) {
		return false
	}
	return !p.hostLike || len(words) <= 16
}

// prefixNote is the note of an output whose lines had prefixes removed.
func prefixNote(removed []string) string {
	return fmt.Sprintf("removed from the lines before reading them: %s", strings.Join(removed, ", then "))
}

// carriageReturns makes b's line ends line feeds, in place, as a terminal
// shows them: a file with carriage returns and no line feed (a classic Mac
// file, a capture of a tool that ends its lines with CR) has its CRs made
// line feeds; in a file with line feeds, the carriage returns at a line's
// end are its line end (CRLF, and the CRCRLF of a file converted twice
// is made CRLF),
// and a line that a carriage return inside it rewrote (a progress line)
// keeps the text after its last one, which is what the terminal showed.
// Lines keep their numbers. It returns what it did, for the output's notes
// ("" when nothing).
func carriageReturns(b []byte) ([]byte, string) {
	if bytes.IndexByte(b, '\r') < 0 {
		return b, ""
	}
	if bytes.IndexByte(b, '\n') < 0 {
		n := 0
		for i, c := range b {
			if c == '\r' {
				b[i] = '\n'
				n++
			}
		}
		return b, fmt.Sprintf("its %d lines end in carriage returns without line feeds: read as line ends", n)
	}
	w, rewritten := 0, 0
	for r := 0; r < len(b); {
		end := bytes.IndexByte(b[r:], '\n')
		next := len(b)
		if end >= 0 {
			end += r
			next = end + 1
		} else {
			end = len(b)
		}
		body := end
		for body > r && b[body-1] == '\r' {
			body--
		}
		start := r
		if i := bytes.LastIndexByte(b[r:body], '\r'); i >= 0 {
			start = r + i + 1
			rewritten++
		}
		w += copy(b[w:], b[start:body])
		if body < end && next > end { // CRLF (a CRCRLF made one); a last line's CRs go
			b[w] = '\r'
			w++
		}
		if next > end {
			b[w] = '\n'
			w++
		}
		r = next
	}
	if rewritten == 0 {
		return b[:w], ""
	}
	return b[:w], fmt.Sprintf("%d lines were rewritten by carriage returns inside them (progress output): the text after the last one is read, as a terminal shows it", rewritten)
}

// byteOrder reads a byte-order mark at the start of b, as Windows tools
// and PowerShell's Out-File write one: UTF-8's is removed; UTF-16's (LE or
// BE) has the file decoded to UTF-8. It returns the text and what it did
// ("" when b has no mark). Lines keep their numbers.
func byteOrder(b []byte) ([]byte, string) {
	switch {
	case bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf}):
		return b[3:], "a UTF-8 byte-order mark at its start: removed"
	case len(b) >= 2 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff):
		le := b[0] == 0xff
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			if le {
				u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
			}
		}
		order := "big"
		if le {
			order = "little"
		}
		return []byte(string(utf16.Decode(u))), fmt.Sprintf("UTF-16 (%s-endian, with its byte-order mark): read as UTF-8", order)
	}
	return b, ""
}
