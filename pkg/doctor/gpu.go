package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/record"
)

// GPUSource gives what the GPU driver knows about the GPUs, as the nvml
// probe records it (record.GPUInventory): NVML on a GPU host (package
// nvmlsrc), a JSON file in tests or from another host (FileGPUSource).
// Doctor calls GPUInventory once.
type GPUSource interface {
	// GPUInventory reads the GPUs. An error says why nothing could be read
	// ("NVML: Init: ERROR_LIBRARY_NOT_FOUND"): an ordinary outcome on a host
	// without the driver.
	GPUInventory() (*record.GPUInventory, error)
}

// via names where an inventory came from: "NVML 13.580.159.04".
func via(inv *record.GPUInventory) string {
	if inv.NVMLVersion == "" {
		return "NVML"
	}
	return "NVML " + inv.NVMLVersion
}

// matrixClass is the class of the ordered GPU pair (i, j) as nvidia-smi
// topo -m prints it (NV18, PIX, PHB, SYS ...); false when the inventory's
// matrix does not have it.
func matrixClass(inv *record.GPUInventory, i, j int) (string, bool) {
	if i < 0 || j < 0 || i >= len(inv.Matrix) || j >= len(inv.Matrix[i]) || inv.Matrix[i][j] == "" {
		return "", false
	}
	return inv.Matrix[i][j], true
}

// FileGPUSource reads a GPU inventory from a JSON file, the form
// record.GPUInventory marshals to (the nvml probe's inventory in a run's
// manifest, or gpupath doctor --save-tree's nvml.json): a fake of NVML for
// tests, or the facts of another host.
type FileGPUSource struct {
	FS   fs.FS
	Name string
}

// GPUInventory reads and parses the file.
func (f FileGPUSource) GPUInventory() (*record.GPUInventory, error) {
	b, err := readBounded(f.FS, f.Name)
	if err != nil {
		return nil, err
	}
	return ParseGPUInventory(b)
}

// ParseGPUInventory parses a GPU inventory as JSON. Unknown fields are
// errors, so a misspelt fixture does not pass silently, and every device
// needs its PCI address.
func ParseGPUInventory(b []byte) (*record.GPUInventory, error) {
	var g record.GPUInventory
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("doctor: GPU facts: the file is empty, not JSON")
	}
	if err := strictJSON(b, &g); err != nil {
		return nil, fmt.Errorf("doctor: GPU facts: %w", escapeSyntax(err, b))
	}
	for i, d := range g.Devices {
		if d.PCIBusID == "" {
			return nil, fmt.Errorf("doctor: GPU facts: device %d has no pci_bus_id", i)
		}
	}
	return &g, nil
}

// NoGPUSource is a source that has nothing: Why says why ("not built with
// cgo", "--nvml off").
type NoGPUSource struct{ Why string }

// GPUInventory returns the reason as an error.
func (n NoGPUSource) GPUInventory() (*record.GPUInventory, error) { return nil, errors.New(n.Why) }

// escapeSyntax is a JSON syntax error of b with the byte it stopped at
// escaped: encoding/json quotes a byte past ASCII as the character of that
// number (0xa1 as '¡', which the file does not hold), so the message says
// '\xa1' instead, as termtext escapes a byte that is not UTF-8.
func escapeSyntax(err error, b []byte) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset < 1 || se.Offset > int64(len(b)) {
		return err
	}
	c := b[se.Offset-1]
	if c < 0x80 {
		return err
	}
	return errors.New(strings.Replace(se.Error(), "'"+string(rune(c))+"'", fmt.Sprintf(`'\x%02x'`, c), 1))
}

func strictJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// WriteGPUInventory writes a GPU inventory as indented JSON, the form
// FileGPUSource reads.
func WriteGPUInventory(w io.Writer, g *record.GPUInventory) error {
	enc := termtext.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(g)
}
