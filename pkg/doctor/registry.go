package doctor

import (
	"fmt"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/model"
)

// Check is one family of checks: it reads what it needs through the Env
// and returns its findings. A check never fails: what it cannot read
// becomes a finding that says so.
type Check interface {
	// Name names the family ("peermem"); findings carry it in Check.
	Name() string
	// Run reads and judges.
	Run(e *Env) []Finding
}

// checks is the registry: every family, in the order the report lists
// findings of equal severity. A new family is one file and one line here.
var checks = []Check{
	peerMemCheck{},
	gdrCopyCheck{},
	dmabufCheck{},
	nvParamsCheck{},
	topologyCheck{},
	numaCheck{},
	pcieCheck{},
	acsCheck{},
	iommuCheck{},
	rdmaCheck{},
	netCheck{},
	devmemCheck{},
	nvlinkCheck{},
}

// CheckNames lists the check families in registry order.
func CheckNames() []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.Name()
	}
	return out
}

// Run runs every check and prices the findings. It reads only through the
// trees and the GPU source in o.
func Run(o Options) *Report {
	e := newEnv(o)
	r := &Report{Roots: o.Roots, GPUSource: gpuSourceLine(e)}
	var host []model.Override
	if o.Pricer != nil {
		r.Scenario = o.Pricer.Name()
		host = o.Pricer.hostKeys(calib.Overrides(hostFacts(e)))
		r.Host = texts(host)
	}
	for _, c := range checks {
		for _, f := range runCheck(c, e) {
			if f.Check == "" {
				f.Check = c.Name()
			}
			if f.Cost != nil && o.Pricer != nil {
				f.Price = o.Pricer.Price(*f.Cost, host)
			}
			r.Findings = append(r.Findings, f)
		}
	}
	r.bound()
	sortFindings(r.Findings)
	for _, f := range r.Findings {
		r.Summary.add(f.Severity)
	}
	return r
}

// runCheck runs c, turning a panic into a finding: a bug in one check must
// not cost the others.
func runCheck(c Check, e *Env) (out []Finding) {
	defer func() {
		if v := recover(); v != nil {
			out = append(out, Finding{Check: c.Name(), ID: c.Name() + ".internal", Severity: Unknown,
				Title: fmt.Sprintf("the %s check stopped: %s (a bug in gpupath; the other checks ran)", c.Name(), oneLine(fmt.Sprint(v)))})
		}
	}()
	return c.Run(e)
}

func gpuSourceLine(e *Env) string {
	g, err := e.gpuInventory()
	if err != nil {
		return "none: " + err.Error()
	}
	return fmt.Sprintf("%s (%s)", via(g), count(len(g.Devices), "GPU"))
}

// count says "1 GPU", "2 GPUs".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
