package diff_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/diff"
	"github.com/gatewright/gatewright/internal/offline"
)

// A change that takes a route's chain over a sum bound with the route owner's own
// GatewayConfigs charges them and the route, as the controller does (issue 40, item
// 3): the provider's global policy, the largest of the chain, keeps its verdict.
func TestCompareChargesARouteOverASumBoundToTheRoute(t *testing.T) {
	var docs []string
	for i := range 63 {
		docs = append(docs, fmt.Sprintf(`apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: c%02d, namespace: team-b}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}]
  default: {k%02d: 1}
`, i, i))
	}
	path := filepath.Join(t.TempDir(), "configs.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	base, err := offline.Load("testdata/base.yaml")
	if err != nil {
		t.Fatal(err)
	}
	changed, err := offline.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	after, err := base.With(changed, nil, controllerNamespace)
	if err != nil {
		t.Fatal(err)
	}
	report, err := diff.Compare(base, after, diff.Options{ControllerNamespace: controllerNamespace})
	if err != nil {
		t.Fatal(err)
	}

	verdicts := map[string]diff.PolicyChange{}
	for _, p := range report.Policies {
		verdicts[p.Kind+" "+p.Namespace+"/"+p.Name] = p
	}
	if p, changed := verdicts["GatewayClassConfig gatewright-system/global"]; changed {
		t.Errorf("the provider's global policy changes verdict: %+v", p)
	}
	if p := verdicts["GatewayConfig team-b/c00"]; p.Programmed.New != "Invalid" || !strings.Contains(p.Message, "the route's own policies") {
		t.Errorf("c00: %+v, want Invalid, charged as the route's own", p)
	}
	refused := false
	for _, route := range report.Routes {
		for _, c := range route.Conditions {
			if route.Namespace == "team-b" && route.Name == "store" && c.Type == "Accepted" && strings.HasPrefix(c.New, "False/") && strings.Contains(c.Message, "more than 64 blocks") {
				refused = true
			}
		}
	}
	if !refused {
		t.Errorf("the route is not refused for the bound: %+v", report.Routes)
	}
	if report.Summary.Failing != 0 {
		t.Errorf("%d Gateways would fail", report.Summary.Failing)
	}
}
