package controllers_test

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// metric returns the value of the counter or gauge called name with exactly these labels,
// or the sample count of such a histogram; 0 when there is no such series.
func metric(name string, labels ...string) func() float64 {
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	return func() float64 {
		families, err := ctrlmetrics.Registry.Gather()
		Expect(err).NotTo(HaveOccurred())
		for _, family := range families {
			if family.GetName() != name {
				continue
			}
			for _, m := range family.GetMetric() {
				got := map[string]string{}
				for _, label := range m.GetLabel() {
					got[label.GetName()] = label.GetValue()
				}
				if !maps.Equal(got, want) {
					continue
				}
				switch {
				case m.GetCounter() != nil:
					return m.GetCounter().GetValue()
				case m.GetGauge() != nil:
					return m.GetGauge().GetValue()
				case m.GetHistogram() != nil:
					return float64(m.GetHistogram().GetSampleCount())
				}
			}
		}
		return 0
	}
}

// gatewayGauge returns gatewright_gateways for the world's class as
// "Accepted=<True>/<False>/<Unknown> Programmed=<True>/<False>/<Unknown>".
func (w world) gatewayGauge() func() string {
	return func() string {
		var out []string
		for _, t := range []string{"Accepted", "Programmed"} {
			var counts []string
			for _, status := range []string{"True", "False", "Unknown"} {
				counts = append(counts, fmt.Sprint(metric("gatewright_gateways", "gatewayclass", w.class, "type", t, "status", status)()))
			}
			out = append(out, t+"="+strings.Join(counts, "/"))
		}
		return strings.Join(out, " ")
	}
}

// increased tells whether a metric grew by at least n since before.
func increased(before float64, n float64) OmegaMatcher {
	return BeNumerically(">=", before+n)
}

var _ = Describe("Metrics", func() {
	It("count renders, applies, render errors, prunes and clean-up, time them, and count Gateways by condition", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		Eventually(w.classCondition(ctx)).Should(HavePrefix("True/Accepted"))
		Eventually(w.gatewayGauge()).Should(Equal("Accepted=0/0/0 Programmed=0/0/0"))

		rendered := metric("gatewright_renders_total", "kind", "gateway", "result", "success")
		failed := metric("gatewright_renders_total", "kind", "gateway", "result", "error")
		applied := metric("gatewright_applies_total", "kind", "gateway", "result", "success")
		changed := metric("gatewright_applied_objects_total", "kind", "gateway", "result", "changed")
		pruned := metric("gatewright_deleted_objects_total", "kind", "gateway", "reason", "pruned")
		cleanedUp := metric("gatewright_deleted_objects_total", "kind", "gateway", "reason", "cleanup")
		merges := metric("gatewright_values_merge_duration_seconds", "kind", "gateway")
		renders := metric("gatewright_render_duration_seconds", "kind", "gateway")
		applies := metric("gatewright_apply_duration_seconds", "kind", "gateway")
		templateErrors := metric("gatewright_render_errors_total", "blueprint", w.blueprint, "template", "gateway/config")
		before := map[string]float64{}
		for name, m := range map[string]func() float64{
			"rendered": rendered, "failed": failed, "applied": applied, "changed": changed, "pruned": pruned,
			"cleanedUp": cleanedUp, "merges": merges, "renders": renders, "applies": applies,
		} {
			before[name] = m()
		}

		By("rendering and applying a Gateway")
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
		Expect(rendered()).To(increased(before["rendered"], 1))
		Expect(applied()).To(increased(before["applied"], 1))
		Expect(changed()).To(increased(before["changed"], 2), "the ConfigMap and the Service were created")
		Expect(merges()).To(increased(before["merges"], 1))
		Expect(renders()).To(increased(before["renders"], 1))
		Expect(applies()).To(increased(before["applies"], 1))
		Eventually(w.gatewayGauge()).Should(Equal("Accepted=1/0/0 Programmed=1/0/0"))

		By("breaking a template")
		w.classAndBlueprint(ctx, strings.Replace(configBlueprint, "{{ .Values.greeting | quote }}", `{{ required "greeting2 is required" .Values.greeting2 }}`, 1))
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("False/Invalid"))
		Expect(templateErrors()).To(BeNumerically(">=", 1))
		Expect(failed()).To(increased(before["failed"], 1))
		Eventually(w.gatewayGauge()).Should(Equal("Accepted=1/0/0 Programmed=0/1/0"))

		By("dropping a template, which prunes its object")
		w.classAndBlueprint(ctx, configBlueprint[:strings.Index(configBlueprint, "  - name: service")])
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))
		Expect(pruned()).To(increased(before["pruned"], 1))

		By("deleting the Gateway")
		Expect(k8s.Delete(ctx, w.getGateway(ctx, "web"))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: w.namespace, Name: "gateway.web"}, &gatewrightv1alpha1.Rendering{}))
		}).Should(BeTrue())
		Expect(cleanedUp()).To(increased(before["cleanedUp"], 1))
		Eventually(w.gatewayGauge()).Should(Equal("Accepted=0/0/0 Programmed=0/0/0"))
	})

	It("are served on the metrics endpoint of the running controller", func(ctx SpecContext) {
		w := newWorld(ctx)
		w.classAndBlueprint(ctx, configBlueprint)
		w.gateway(ctx, "web")
		Eventually(w.gatewayCondition(ctx, "web", "Programmed")).Should(HavePrefix("True/Programmed"))

		scrape := func() []string {
			resp, err := http.Get("http://" + metricsAddress + "/metrics")
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			body, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return strings.Split(string(body), "\n")
		}
		Eventually(scrape).Should(ContainElements(
			"# TYPE gatewright_renders_total counter",
			"# TYPE gatewright_applies_total counter",
			"# TYPE gatewright_applied_objects_total counter",
			"# TYPE gatewright_deleted_objects_total counter",
			"# TYPE gatewright_apply_duration_seconds histogram",
			"# TYPE gatewright_values_merge_duration_seconds histogram",
			"# TYPE gatewright_render_duration_seconds histogram",
			"# TYPE gatewright_gateways gauge",
			`gatewright_gateways{gatewayclass="`+w.class+`",status="True",type="Programmed"} 1`,
		))
	})
})
