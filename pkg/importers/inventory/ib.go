package inventory

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// The tool names of the formats.
const (
	IBStat     = "ibstat"
	IBVDevinfo = "ibv_devinfo"
	SMITopo    = "nvidia-smi-topo"
)

var (
	caRe      = regexp.MustCompile(`^CA '([^']+)'\s*$`)
	kvRe      = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z _]*?)\s*:\s*(.*?)\s*$`)
	portRe    = regexp.MustCompile(`^\s*Port (\d+):\s*$`)
	guidRe    = regexp.MustCompile(`^\s*(0x[0-9a-fA-F]{16}\s*)+$`)
	hcaRe     = regexp.MustCompile(`^hca_id:\s*(\S+)\s*$`)
	devPortRe = regexp.MustCompile(`^\s*port:\s*(\d+)\s*$`)
	hcaListRe = regexp.MustCompile(`^\s*(\d+) HCAs? found:\s*$`)
	speedRe   = regexp.MustCompile(`^([0-9.]+) Gbps`)
	widthRe   = regexp.MustCompile(`^(\d+)X`)
)

// partIDs names Mellanox/NVIDIA vendor_part_id values (the PCI device ids of
// vendor 0x15b3 in decimal, from the PCI ID repository's pci.ids).
var partIDs = map[string]string{
	"4099": "ConnectX-3", "4103": "ConnectX-3 Pro", "4115": "ConnectX-4", "4117": "ConnectX-4 Lx", "4119": "ConnectX-5",
	"4121": "ConnectX-5 Ex", "4123": "ConnectX-6", "4125": "ConnectX-6 Dx", "4127": "ConnectX-6 Lx", "4129": "ConnectX-7",
	"4131": "ConnectX-8", "41682": "BlueField-2", "41686": "BlueField-3",
}

// caTypes names ibstat's "CA type: MT4119" the same way.
func caModel(t string) string {
	if id, ok := strings.CutPrefix(t, "MT"); ok {
		if m, ok := partIDs[id]; ok {
			return m + " (" + t + ")"
		}
	}
	return t
}

// DetectIBStat tells whether b is ibstat output.
func DetectIBStat(b []byte) bool {
	lines := obs.Lines(b)
	for i, l := range lines {
		if caRe.MatchString(l) && i+1 < len(lines) && strings.Contains(lines[i+1], "CA type:") {
			return true
		}
	}
	// ibstat -p: only port GUIDs.
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if !guidRe.MatchString(l) {
			return false
		}
		n++
	}
	return n > 0
}

// ParseIBStat reads ibstat, ibstat -s and ibstat -p output.
func ParseIBStat(b []byte) (*obs.Output, error) {
	out := &obs.Output{Tool: IBStat}
	var ca, model string
	var port *obs.NIC
	caLine, ports := 0, 0
	flush := func() {
		if port != nil {
			out.Hardware.NICs = append(out.Hardware.NICs, *port)
			port = nil
		}
	}
	endCA := func() { // ibstat -s lists CAs without ports
		flush()
		if ca != "" && ports == 0 {
			out.Hardware.NICs = append(out.Hardware.NICs, obs.NIC{Name: ca, Model: model, Line: caLine})
		}
	}
	guids, found := 0, false
	for i, raw := range obs.Lines(b) {
		n := i + 1
		if strings.TrimSpace(raw) == "" {
			continue
		}
		if m := caRe.FindStringSubmatch(raw); m != nil {
			endCA()
			ca, model, found, caLine, ports = m[1], "", true, n, 0
			continue
		}
		if m := portRe.FindStringSubmatch(raw); m != nil && ca != "" {
			flush()
			ports++
			p, _ := strconv.Atoi(m[1])
			port = &obs.NIC{Name: ca, Port: p, Model: model, Line: n}
			continue
		}
		if guidRe.MatchString(raw) {
			guids += len(strings.Fields(raw))
			continue
		}
		m := kvRe.FindStringSubmatch(raw)
		if m == nil || ca == "" {
			out.Problems = append(out.Problems, obs.Problem{Line: n, Text: strings.TrimSpace(raw), Reason: "not an ibstat line"})
			continue
		}
		k, v := m[1], m[2]
		switch {
		case k == "CA type":
			model = caModel(v)
		case port == nil:
		case k == "State":
			port.State = v
		case k == "Rate":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r < 0 {
				out.Problems = append(out.Problems, obs.Problem{Line: n, Text: strings.TrimSpace(raw), Reason: "a rate that cannot be read"})
				continue
			}
			port.RateBps = r * 1e9 // ibstat prints the port rate in Gb/s
		case k == "Link layer":
			port.LinkLayer = v
		}
	}
	endCA()
	if !found && guids == 0 {
		return nil, obs.NotRecognized(IBStat, "no CA block")
	}
	if guids > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d port GUID(s) listed (ibstat -p form); they name no rate or state", guids))
	}
	if len(out.Hardware.NICs) > 0 {
		out.Hardware.Mark("nics", out.Hardware.NICs[0].Line)
	}
	return out, nil
}

// DetectIBVDevinfo tells whether b is ibv_devinfo output.
func DetectIBVDevinfo(b []byte) bool {
	for _, l := range obs.Lines(b) {
		if hcaRe.MatchString(l) || hcaListRe.MatchString(l) {
			return true
		}
	}
	return false
}

// ParseIBVDevinfo reads ibv_devinfo, ibv_devinfo -v and ibv_devinfo -l.
func ParseIBVDevinfo(b []byte) (*obs.Output, error) {
	out := &obs.Output{Tool: IBVDevinfo}
	var hca, model string
	var port *obs.NIC
	var width, speed float64
	flush := func() {
		if port != nil {
			if width > 0 && speed > 0 {
				port.RateBps = width * speed * 1e9
			}
			out.Hardware.NICs = append(out.Hardware.NICs, *port)
			port, width, speed = nil, 0, 0
		}
	}
	found, list := false, 0
	for i, raw := range obs.Lines(b) {
		n := i + 1
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		if m := hcaRe.FindStringSubmatch(t); m != nil {
			flush()
			hca, model, found = m[1], "", true
			continue
		}
		if hcaListRe.MatchString(t) {
			found = true
			list = 1
			continue
		}
		if list > 0 && !strings.Contains(t, ":") {
			out.Notes = append(out.Notes, "HCA listed: "+t)
			continue
		}
		if m := devPortRe.FindStringSubmatch(t); m != nil && hca != "" {
			flush()
			p, _ := strconv.Atoi(m[1])
			port = &obs.NIC{Name: hca, Port: p, Model: model, Line: n}
			continue
		}
		m := kvRe.FindStringSubmatch(raw)
		if m == nil {
			continue // the flag lists of -v (BAD_PKEY_CNTR ...)
		}
		k, v := m[1], m[2]
		switch {
		case k == "vendor_part_id":
			if name, ok := partIDs[v]; ok {
				model = name + " (" + v + ")"
			} else {
				model = v
			}
		case port == nil:
		case k == "state":
			port.State = v
		case k == "active_mtu":
			f := strings.Fields(v)
			if len(f) > 0 {
				port.MTU, _ = strconv.ParseInt(f[0], 10, 64)
			}
		case k == "link_layer":
			port.LinkLayer = v
		case k == "active_width":
			if w := widthRe.FindStringSubmatch(v); w != nil {
				width, _ = strconv.ParseFloat(w[1], 64)
			}
		case k == "active_speed":
			if s := speedRe.FindStringSubmatch(v); s != nil {
				speed, _ = strconv.ParseFloat(s[1], 64)
			}
		}
	}
	flush()
	if !found {
		return nil, obs.NotRecognized(IBVDevinfo, "no hca_id block")
	}
	if len(out.Hardware.NICs) > 0 {
		out.Hardware.Mark("nics", out.Hardware.NICs[0].Line)
	}
	return out, nil
}
