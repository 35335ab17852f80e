package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/test/golden"
)

// TestExplanationOutput checks explain's -o json and -o yaml shapes on the samples; the
// table is checked live by TestDemo.
func TestExplanationOutput(t *testing.T) {
	set, err := offline.Load(filepath.Join("..", "..", "samples"))
	if err != nil {
		t.Fatal(err)
	}
	gw, err := set.Gateway("team-a", "web")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := set.ForValues(defaultControllerNamespace, gw, nil)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := explain.NewValuesExplanation(gw, nil, snap, snap.Valuing(&render.Cache{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			if err := printValuesExplanation(&out, exp, format); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "explain", "samples."+format+".out"), out.Bytes())
		})
	}
	var decoded struct {
		Values   map[string]any `json:"values"`
		Policies []struct {
			State string `json:"state"`
		} `json:"policies"`
	}
	var out bytes.Buffer
	if err := printValuesExplanation(&out, exp, "json"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded.Values["replicas"] != float64(3) || len(decoded.Policies) != 4 || decoded.Policies[3].State != "Enforced" {
		t.Errorf("unexpected explanation: %s", out.String())
	}
}
