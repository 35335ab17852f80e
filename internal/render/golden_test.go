package render_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
)

var update = flag.Bool("update", false, "rewrite testdata/*.out.yaml from the current renderer")

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
			got := renderFiles(t, input)
			want := filepath.Join("testdata", name+".out.yaml")
			if *update {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			expected, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (go test ./internal/render -update creates it)", err)
			}
			if !bytes.Equal(expected, got) {
				t.Errorf("render differs from %s (check, then go test ./internal/render -update):\n%s", want, got)
			}
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
