package render_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gatewright/gatewright/internal/render"
)

// bigObject is a live object as large as a tenant-fed one may come: 1,000 keys of data,
// 10,000 items and a 100 KB string.
func bigObject() *unstructured.Unstructured {
	data := map[string]any{}
	for i := range 1000 {
		data[fmt.Sprintf("key-%04d", i)] = strings.Repeat("v", 100)
	}
	items := make([]any, 10_000)
	for i := range items {
		items[i] = int64(i)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"data": data, "items": items, "blob": strings.Repeat("b", 100_000),
	}}
	obj.SetAPIVersion("example.org/v1")
	obj.SetKind("XNetwork")
	obj.SetName("net")
	obj.SetLabels(map[string]string{"gatewright.dev/template": "composite"})
	return obj
}

// TestHostileReadyWhenIsStoppedByItsBound: a readyWhen runs on every judgement of every
// object of its template, on objects other controllers fill, so the bounds of a policy's
// when hold it (values.MaxWhenCost): whatever it tries, it ends not ready, having
// allocated little.
func TestHostileReadyWhenIsStoppedByItsBound(t *testing.T) {
	const maxAllocated = 64 << 20
	tests := []struct {
		name      string
		readyWhen string
	}{
		{name: "nested loops over the object's keys run into the cost bound",
			readyWhen: "self.data.all(a, self.data.all(b, self.data.all(c, a + b + c != '')))"},
		{name: "a list of every pair of items is never built",
			readyWhen: "self.items.map(x, self.items.map(y, x + y)).size() > 0"},
		{name: "copies of a large string are never made",
			readyWhen: "self.items.map(x, self.blob + self.blob).size() > 0"},
		{name: "comparing the object with itself is charged for what it walks",
			readyWhen: "self.items.all(x, self.data == self.data)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := blueprint(t, compositeBlueprint)
			bp.Spec.GatewayTemplate.ResourceTemplates[0].ReadyWhen = tt.readyWhen
			parsed, err := render.Parse(bp)
			if err != nil {
				t.Fatal(err)
			}
			judge := parsed.Readiness("", kstatusSays(true))
			obj := bigObject()

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			ready, reason := judge(obj, "composite")
			runtime.ReadMemStats(&after)

			if ready || reason != "readyWhen failed: operation cancelled: actual cost limit exceeded" {
				t.Errorf("ready %v (%q), want not ready by the cost bound", ready, reason)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > maxAllocated {
				t.Errorf("allocated %d MiB, want at most %d MiB", allocated>>20, maxAllocated>>20)
			}
		})
	}
}

// TestReadyWhenSharesABudgetOverARender: each evaluation keeps within its own bound, but
// a render may judge thousands of objects; together they draw on one budget, and once it
// is spent the rest are not ready (fail safe), not evaluated.
func TestReadyWhenSharesABudgetOverARender(t *testing.T) {
	bp := blueprint(t, compositeBlueprint)
	bp.Spec.GatewayTemplate.ResourceTemplates[0].ReadyWhen = "self.items.all(x, x >= 0)"
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	judge := parsed.Readiness("", kstatusSays(true))
	obj := bigObject()
	obj.Object["items"] = obj.Object["items"].([]any)[:500] // well within one evaluation's bound
	judged, spent := 0, ""
	for range 1000 {
		ready, reason := judge(obj, "composite")
		if !ready {
			spent = reason
			break
		}
		judged++
	}
	if judged == 0 || judged >= 1000 || !strings.Contains(spent, "used up their 100000 cost units together") {
		t.Errorf("%d objects judged ready, then %q; want some, then the shared budget spent", judged, spent)
	}
	if ready, _ := parsed.Readiness("", kstatusSays(true))(obj, "composite"); !ready {
		t.Error("the next render's judge shares the spent budget")
	}
}
