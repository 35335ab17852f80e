package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gatewright/gatewright/internal/controlplane"
	"github.com/gatewright/gatewright/test/golden"
)

// TestDemo plays the whole story of `make demo` on a real control plane. The transcript
// holds the explain tables, so it is compared with a golden file; only the control
// plane's address and binaries differ between runs.
func TestDemo(t *testing.T) {
	binDir, err := controlplane.FindBinaries(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := newRootCommand()
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"demo", "--control-plane-bin", binDir})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	transcript := regexp.MustCompile(`(?m)^(Starting kube-apiserver and etcd from|Control plane ready at) \S+`).
		ReplaceAll(out.Bytes(), []byte("$1 <local>"))
	golden.Check(t, filepath.Join("testdata", "demo.out"), transcript)
}
