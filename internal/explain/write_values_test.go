package explain

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/test/golden"
)

// TestExplanationNotes checks the tables of explain on a route whose policies meet every
// strategy, condition and refusal that explain names.
func TestExplanationNotes(t *testing.T) {
	set, err := offline.Load(filepath.Join("testdata", "notes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	gw, err := set.Gateway("team-a", "web")
	if err != nil {
		t.Fatal(err)
	}
	route, err := set.HTTPRoute("team-b", "shop")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := set.ForValues(controllerNamespace, gw, route)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := NewValuesExplanation(gw, route, snap, snap.Valuing(&render.Cache{}, route))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteValues(&out, exp); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "notes.out"), out.Bytes())
}
