package diff_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/diff"
	"github.com/gatewright/gatewright/internal/offline"
)

// fleet is base.yaml's blueprint, class and global policy with gateways Gateways spread
// over namespaces, a route on each.
func fleet(b *testing.B, gateways, namespaces int) *offline.Set {
	b.Helper()
	set, err := offline.Load("testdata/base.yaml")
	if err != nil {
		b.Fatal(err)
	}
	set.Gateways, set.HTTPRoutes, set.GatewayConfigs = nil, nil, nil
	var yaml strings.Builder
	for i := range gateways {
		ns := fmt.Sprintf("team-%d", i%namespaces)
		fmt.Fprintf(&yaml, `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-%d, namespace: %s}
spec:
  gatewayClassName: internet
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route-%d, namespace: %s}
spec:
  parentRefs: [{name: gw-%d}]
  hostnames: [r%d.example.com]
`, i, ns, i, ns, i, i)
	}
	if err := set.Add([]byte(yaml.String())); err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkDiffBlueprintChange diffs a template change that reaches every one of 5,000
// Gateways, each with a route: 10,000 contexts translated on each side.
func BenchmarkDiffBlueprintChange(b *testing.B) {
	for _, namespaces := range []int{1, 1000} {
		b.Run(fmt.Sprintf("5000 Gateways in %d namespaces", namespaces), func(b *testing.B) {
			base := fleet(b, 5000, namespaces)
			change, err := offline.Load("testdata/template-change.yaml")
			if err != nil {
				b.Fatal(err)
			}
			changed, err := base.With(change, nil, controllerNamespace)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				report, err := diff.Compare(base, changed, diff.Options{ControllerNamespace: controllerNamespace})
				if err != nil {
					b.Fatal(err)
				}
				if report.Summary.Gateways != 5000 || report.Summary.Updated != 5000 {
					b.Fatalf("summary %+v, want 5000 Gateways and 5000 objects updated", report.Summary)
				}
			}
		})
	}
}
