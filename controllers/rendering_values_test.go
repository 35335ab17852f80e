package controllers_test

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

var _ = Describe("Rendering values", func() {
	var w world
	BeforeEach(func(ctx SpecContext) {
		w = newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint+"privateValuePaths: [port]\n")
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
	})

	// recordedValues reads part 0 of a Gateway's record as "path=value from source
	// (level)" lines, and its resourceVersion.
	recordedValues := func(ctx context.Context, name string) func() ([]string, error) {
		return func() ([]string, error) {
			r := &gatewrightv1alpha1.Rendering{}
			if err := k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: name}, r); err != nil || r.Values == nil {
				return nil, err
			}
			var lines []string
			for _, l := range r.Values.Provenance {
				value := l.Value
				if l.Private {
					value = gatewrightv1alpha1.PrivateValue
				}
				lines = append(lines, fmt.Sprintf("%s=%s from %s %s (%d)", l.Path, value, l.Source.Kind, l.Source.Name, l.Level))
			}
			for _, p := range r.Values.Policies {
				lines = append(lines, fmt.Sprintf("%s %s: %s", p.Source.Kind, p.Source.Name, p.State))
			}
			return lines, nil
		}
	}

	It("records the Gateway's values with their sources, keeps private paths private, and follows a change of values alone", func(ctx SpecContext) {
		w.gateway(ctx, "web")
		Eventually(recordedValues(ctx, "gateway.web")).Should(Equal([]string{
			`greeting="hello" from GatewayClassBlueprint ` + w.blueprint + ` (1)`,
			`port=<private> from GatewayClassBlueprint ` + w.blueprint + ` (1)`,
			`GatewayClassBlueprint ` + w.blueprint + `: Enforced`,
		}))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
		settled := w.rendering(ctx, "gateway.web")

		By("setting a value no template reads: the objects stay, the record follows")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: unused, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  default: {unused: 1}
`)
		Eventually(recordedValues(ctx, "gateway.web")).Should(ContainElements(
			`unused=1 from GatewayConfig unused (6)`,
			`GatewayConfig unused: Enforced`,
		))
		updated := w.rendering(ctx, "gateway.web")
		Expect(updated.Objects).To(Equal(settled.Objects))
		Expect(updated.Values.RecordedAt.Before(&settled.Values.RecordedAt)).To(BeFalse())

		By("reconciling again without a change of its values: the record is not written")
		w.apply(ctx, `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: elsewhere, namespace: NAMESPACE}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: other}]
  default: {unused: 2}
`)
		Consistently(func() string { return w.rendering(ctx, "gateway.web").ResourceVersion }).Should(Equal(updated.ResourceVersion))
	})
})
