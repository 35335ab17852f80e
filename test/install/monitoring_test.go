package install

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The expressions of the dashboard and the alerts are parsed, and the metrics they name
// checked against what the controller exports, in cmd/gatewright (monitoring_test.go),
// which runs the controller.
var _ = Describe("config/monitoring", func() {
	var built objects
	BeforeEach(func() {
		built = kustomizeBuild(configDir("monitoring"))
	})

	It("holds the dashboard, for Grafana's sidecar, and the alerts, in the controller namespace", func() {
		Expect(built.keys()).To(Equal([]string{"ConfigMap/gatewright-dashboard", "PrometheusRule/gatewright"}))
		dashboard := as[corev1.ConfigMap](built.get("ConfigMap", "gatewright-dashboard"))
		Expect(dashboard.Namespace).To(Equal("gatewright-system"))
		Expect(dashboard.Labels).To(HaveKeyWithValue("grafana_dashboard", "1"))
		source, err := os.ReadFile(filepath.Join(configDir("monitoring"), "dashboard.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(dashboard.Data["gatewright.json"]).To(MatchJSON(source))

		var parsed struct {
			UID    string `json:"uid"`
			Panels []struct {
				Type string `json:"type"`
			} `json:"panels"`
		}
		Expect(json.Unmarshal(source, &parsed)).To(Succeed())
		Expect(parsed.UID).To(Equal("gatewright-fleet"), "a stable uid, so that a new version replaces the loaded one")
		Expect(parsed.Panels).NotTo(BeEmpty())

		rule := built.get("PrometheusRule", "gatewright")
		Expect(rule.GetNamespace()).To(Equal("gatewright-system"))
		var alerts []string
		groups, _, err := unstructured.NestedSlice(rule.Object, "spec", "groups")
		Expect(err).NotTo(HaveOccurred())
		for _, group := range groups {
			for _, r := range group.(map[string]any)["rules"].([]any) {
				alerts = append(alerts, r.(map[string]any)["alert"].(string))
			}
		}
		Expect(alerts).To(ContainElements("GatewrightControllerDown", "GatewrightNoLeader", "GatewrightGatewaysNotProgrammed",
			"GatewrightReconcileErrors", "GatewrightRendersRefused", "GatewrightRolloutRolledBack", "GatewrightRolloutStuck"))
	})

	It("builds a dashboard ConfigMap the API server accepts", func(ctx SpecContext) {
		dashboard := built.get("ConfigMap", "gatewright-dashboard").DeepCopy()
		dashboard.SetNamespace(newNamespace(ctx, "monitoring", nil))
		Expect(dryRunApply(ctx, dashboard)).To(Succeed())
	})
})
