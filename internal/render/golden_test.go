package render_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/test/golden"
)

// TestGolden renders every testdata/<case>.in.yaml (a blueprint, classes, Gateways,
// routes and policies) as `gatewright render` does and compares the stream with
// testdata/<case>.out.yaml.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.in.yaml"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), ".in.yaml")
		t.Run(name, func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", name+".out.yaml"), renderFiles(t, input))
		})
	}
}

func renderFiles(t *testing.T, paths ...string) []byte {
	t.Helper()
	set, err := offline.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := set.Render("gatewright-system", "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := offline.WriteStream(&out, rendered); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
