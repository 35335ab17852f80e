package api

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/test/testenv"
)

// The golden renders of blueprints/ are what Gatewright would apply. Core and Gateway API
// kinds are known to this API server, so a server-side dry run proves them valid; the
// third-party kinds below are not, and their READMEs say how they were checked.
var _ = Describe("Blueprint golden renders", func() {
	thirdParty := map[string]bool{
		"ec2.aws.upbound.io":   true, // Crossplane, Upbound AWS provider
		"elbv2.aws.upbound.io": true,
		"elbv2.k8s.aws":        true, // AWS Load Balancer Controller
		"cert-manager.io":      true,
		"externaldns.k8s.io":   true,
	}
	blueprints := filepath.Join(testenv.RepoRoot(), "blueprints")

	for _, tc := range []struct {
		blueprint string
		allKnown  bool // every object is of a kind this API server knows
	}{
		{"envoy-proxy", true},
		{"aws-nlb-istio", false},
		{"istio-certs-dns", false},
	} {
		It("accepts the objects of "+tc.blueprint+"'s golden render in a server-side dry run", func(ctx SpecContext) {
			namespace := newNamespace(ctx)
			objs := readManifests(filepath.Join(blueprints, tc.blueprint, "testdata", "example.out.yaml"))
			Expect(objs).NotTo(BeEmpty())
			checked := 0
			for _, obj := range objs {
				if thirdParty[obj.GroupVersionKind().Group] {
					continue
				}
				// Every kind checked here is namespaced; the spec's namespace stands in for
				// the Gateway's and the routes'.
				Expect(obj.GetNamespace()).NotTo(BeEmpty(), "%s %s", obj.GetKind(), obj.GetName())
				obj.SetNamespace(namespace)
				Expect(k8s.Create(ctx, obj, client.DryRunAll)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
				checked++
			}
			Expect(checked).To(BeNumerically(">", 0))
			if tc.allKnown {
				Expect(checked).To(Equal(len(objs)))
			}
		})
	}
})
