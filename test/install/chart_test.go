package install

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/test/testenv"
)

var _ = Describe("The Helm chart", func() {
	It("passes helm lint with every values file in ci/", func() {
		Expect(ciValues()).To(ContainElements("default", "servicemonitor", "monitoring", "shard", "managed-resources", "single-replica"))
		for _, name := range ciValues() {
			linter := lint.All(chartDir, readCIValues(name), "gatewright-system", false)
			for _, msg := range linter.Messages {
				Expect(msg.Severity).To(BeNumerically("<", support.WarningSev), "ci/%s-values.yaml: %s", name, msg)
			}
		}
	})

	It("renders objects the API server accepts, with every values file in ci/", func(ctx SpecContext) {
		for _, name := range ciValues() {
			namespace := newNamespace(ctx, "release", nil)
			objs, _ := renderCI(namespace, name)
			for _, obj := range objs {
				if obj.GetKind() == "ServiceMonitor" || obj.GetKind() == "PrometheusRule" {
					continue // their CRDs are prometheus-operator's; checked by the servicemonitor and monitoring specs
				}
				Expect(dryRunCreate(ctx, obj)).To(Succeed(), "ci/%s-values.yaml: %s", name, key(obj))
			}
		}
	})

	It("documents every value in its README", func() {
		readme, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
		Expect(err).NotTo(HaveOccurred())
		documented := map[string]bool{}
		for _, row := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllSubmatch(readme, -1) {
			documented[string(row[1])] = true
		}
		for _, path := range valuePaths("", loadChart().Values) {
			Expect(rowFor(documented, path)).To(BeTrue(), "README.md has no row for %s or a parent of it", path)
		}
	})

	It("ships the dashboard and alerts of config/monitoring as they are", func() {
		for _, name := range []string{"dashboard.json", "prometheusrule.yaml"} {
			shipped, err := os.ReadFile(filepath.Join(chartDir, "files", name))
			Expect(err).NotTo(HaveOccurred())
			source, err := os.ReadFile(filepath.Join(configDir("monitoring"), name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(shipped)).To(Equal(string(source)), "files/%s differs from config/monitoring/%s: make manifests copies it", name, name)
		}
	})

	It("ships crds/ identical to config/crd/bases", func() {
		Expect(readDir(filepath.Join(chartDir, "crds"))).To(Equal(readDir(filepath.Join(testenv.RepoRoot(), "config", "crd", "bases"))))
	})

	It("grants the controller every rule generated into config/rbac/role.yaml, and only reads of Secrets", func() {
		role, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "rbac", "role.yaml"))
		Expect(err).NotTo(HaveOccurred())
		generated := decodeObjects(role)
		objs, _ := renderCI("gatewright-system", "default")
		chartGrants := clusterRoleGrants(objs, "gatewright-controller")
		Expect(chartGrants).To(ContainElements(clusterRoleGrants(generated, "gatewright-controller")))
		Expect(chartGrants).To(ContainElements("/secrets get", "/secrets list", "/secrets watch"), "certificateRefs")
		Expect(chartGrants).NotTo(ContainElement(MatchRegexp(`^/secrets (create|update|patch|delete|deletecollection)$`)))
		Expect(chartGrants).NotTo(ContainElement(ContainSubstring("*")))
	})

	Context("with the default values", func() {
		var (
			objs  objects
			notes string
		)
		BeforeEach(func() { objs, notes = renderCI("gatewright-system", "default") })

		It("runs two leader-elected replicas of the controller for the release namespace", func() {
			deploy := as[appsv1.Deployment](objs.get("Deployment", "gatewright-controller"))
			Expect(deploy.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
			container := deploy.Spec.Template.Spec.Containers[0]
			Expect(container.Image).To(Equal("ghcr.io/gatewright/gatewright:" + loadChart().Metadata.AppVersion))
			Expect(container.Args).To(Equal([]string{
				"controller",
				"--controller-namespace=gatewright-system",
				"--metrics-bind-address=:8080",
				"--health-probe-bind-address=:8081",
				"--leader-elect",
				"--gateway-workers=16",
				"--route-workers=8",
				"--policy-workers=4",
				"--zap-log-level=info",
			}))
			Expect(deploy.Spec.Template.Spec.ServiceAccountName).To(Equal("gatewright-controller"))
		})

		It("locks the controller's container down", func() {
			pod := as[appsv1.Deployment](objs.get("Deployment", "gatewright-controller")).Spec.Template.Spec
			Expect(pod.SecurityContext.RunAsNonRoot).To(HaveValue(BeTrue()))
			Expect(pod.SecurityContext.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault))
			sc := pod.Containers[0].SecurityContext
			Expect(sc.AllowPrivilegeEscalation).To(HaveValue(BeFalse()))
			Expect(sc.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
			Expect(sc.Capabilities.Drop).To(Equal([]corev1.Capability{"ALL"}))
			Expect(pod.Containers[0].Resources.Requests).To(HaveKey(corev1.ResourceMemory))
			Expect(pod.Containers[0].Resources.Limits).To(HaveKey(corev1.ResourceMemory))
		})

		It("runs pods that the restricted Pod Security Standard admits", func(ctx SpecContext) {
			namespace := newNamespace(ctx, "restricted", restrictedPodSecurity)
			pod := podOf(objs.get("Deployment", "gatewright-controller"), namespace)
			Expect(k8s.Create(ctx, pod.DeepCopy(), client.DryRunAll)).To(Succeed())

			pod.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = ptr.To(true)
			Expect(k8s.Create(ctx, pod, client.DryRunAll)).To(MatchError(ContainSubstring("violates PodSecurity")),
				"the API server must enforce Pod Security here, or the spec above proves nothing")
		})

		It("probes the health port and serves metrics through a Service", func() {
			container := as[appsv1.Deployment](objs.get("Deployment", "gatewright-controller")).Spec.Template.Spec.Containers[0]
			Expect(container.Ports).To(ContainElements(
				corev1.ContainerPort{Name: "health", ContainerPort: 8081, Protocol: corev1.ProtocolTCP},
				corev1.ContainerPort{Name: "metrics", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			))
			Expect(container.LivenessProbe.HTTPGet.Path).To(Equal("/healthz"))
			Expect(container.LivenessProbe.HTTPGet.Port.String()).To(Equal("health"))
			Expect(container.ReadinessProbe.HTTPGet.Path).To(Equal("/readyz"))
			Expect(container.ReadinessProbe.HTTPGet.Port.String()).To(Equal("health"))

			labels := as[appsv1.Deployment](objs.get("Deployment", "gatewright-controller")).Spec.Template.Labels
			service := as[corev1.Service](objs.get("Service", "gatewright-metrics"))
			Expect(labels).To(matchSelector(service.Spec.Selector))
			Expect(service.Spec.Ports).To(HaveExactElements(HaveField("TargetPort.String()", "metrics")))
			Expect(objs.kinds()).NotTo(ContainElement("ServiceMonitor"))
		})

		It("spreads the replicas and lets one at a time be disrupted", func() {
			deploy := as[appsv1.Deployment](objs.get("Deployment", "gatewright-controller"))
			labels := deploy.Spec.Template.Labels
			Expect(deploy.Spec.Template.Spec.TopologySpreadConstraints).To(HaveEach(HaveField("LabelSelector.MatchLabels", Not(BeEmpty()))))
			for _, constraint := range deploy.Spec.Template.Spec.TopologySpreadConstraints {
				Expect(labels).To(matchSelector(constraint.LabelSelector.MatchLabels))
			}
			pdb := as[policyv1.PodDisruptionBudget](objs.get("PodDisruptionBudget", "gatewright-controller"))
			Expect(pdb.Spec.MaxUnavailable.IntValue()).To(Equal(1))
			Expect(labels).To(matchSelector(pdb.Spec.Selector.MatchLabels))
		})

		It("lets the controller hold its lease and record events in the release namespace", func() {
			role := as[rbacv1.Role](objs.get("Role", "gatewright-leader-election"))
			Expect(role.Namespace).To(Equal("gatewright-system"))
			Expect(grants(role.Rules)).To(ContainElements("coordination.k8s.io/leases update", "coordination.k8s.io/leases create", "/events create"))
			binding := as[rbacv1.RoleBinding](objs.get("RoleBinding", "gatewright-leader-election"))
			Expect(binding.Subjects).To(HaveExactElements(rbacv1.Subject{Kind: "ServiceAccount", Name: "gatewright-controller", Namespace: "gatewright-system"}))
		})

		It("lets the controller manage the kinds the blueprints render", func() {
			Expect(clusterRoleGrants(objs, "gatewright-controller")).To(ContainElements(
				"/configmaps delete", "/services patch", "/serviceaccounts watch",
				"apps/deployments create", "autoscaling/horizontalpodautoscalers update", "policy/poddisruptionbudgets list",
			))
		})

		It("creates the persona roles", func() {
			Expect(objs.keys()).To(ContainElements("ClusterRole/gatewright-tenant", "ClusterRole/gatewright-viewer", "ClusterRole/gatewright-provider",
				"ClusterRole/gatewright-tenant-classes", "ClusterRole/gatewright-tenant-global-configs", "ClusterRole/gatewright-tenant-reader"))
		})

		It("tells how to apply the CRDs before an upgrade", func() {
			Expect(notes).To(ContainSubstring("kubectl apply --server-side -f crds/"))
		})
	})

	DescribeTable("changes only what a values file in ci/ is for",
		func(name string, added, removed, changed []string, check func(objs objects, notes string)) {
			defaults, _ := renderCI("gatewright-system", "default")
			objs, notes := renderCI("gatewright-system", name)
			gotAdded, gotRemoved, gotChanged := objs.changes(defaults)
			Expect(gotAdded).To(Equal(added), "added")
			Expect(gotRemoved).To(Equal(removed), "removed")
			Expect(gotChanged).To(Equal(changed), "changed")
			check(objs, notes)
		},
		Entry("servicemonitor: a ServiceMonitor that scrapes the metrics Service", "servicemonitor",
			[]string{"ServiceMonitor/gatewright-controller"}, nil, nil,
			func(objs objects, _ string) {
				monitor := objs.get("ServiceMonitor", "gatewright-controller")
				service := as[corev1.Service](objs.get("Service", "gatewright-metrics"))
				Expect(monitor.GetAPIVersion()).To(Equal("monitoring.coreos.com/v1"))
				Expect(monitor.GetLabels()).To(HaveKeyWithValue("release", "prometheus"))
				selector, _, _ := unstructured.NestedStringMap(monitor.Object, "spec", "selector", "matchLabels")
				Expect(service.Labels).To(matchSelector(selector))
				namespaces, _, _ := unstructured.NestedStringSlice(monitor.Object, "spec", "namespaceSelector", "matchNames")
				Expect(namespaces).To(Equal([]string{"gatewright-system"}))
				endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
				Expect(endpoints).To(HaveExactElements(And(
					HaveKeyWithValue("port", service.Spec.Ports[0].Name),
					HaveKeyWithValue("path", "/metrics"),
					HaveKeyWithValue("interval", "30s"),
				)))
			}),
		Entry("monitoring: the Grafana dashboard for its sidecar and the alerts, as config/monitoring has them", "monitoring",
			[]string{"ConfigMap/gatewright-dashboard", "PrometheusRule/gatewright"}, nil, nil,
			func(objs objects, _ string) {
				dashboard := as[corev1.ConfigMap](objs.get("ConfigMap", "gatewright-dashboard"))
				Expect(dashboard.Namespace).To(Equal("gatewright-system"))
				Expect(dashboard.Labels).To(HaveKeyWithValue("grafana_dashboard", "1"))
				Expect(dashboard.Annotations).To(HaveKeyWithValue("grafana_folder", "Gateways"))
				source, err := os.ReadFile(filepath.Join(configDir("monitoring"), "dashboard.json"))
				Expect(err).NotTo(HaveOccurred())
				Expect(dashboard.Data).To(HaveKey("gatewright.json"))
				Expect(dashboard.Data["gatewright.json"]).To(MatchJSON(source))

				rule := objs.get("PrometheusRule", "gatewright")
				Expect(rule.GetAPIVersion()).To(Equal("monitoring.coreos.com/v1"))
				Expect(rule.GetNamespace()).To(Equal("gatewright-system"))
				Expect(rule.GetLabels()).To(HaveKeyWithValue("release", "prometheus"))
				want := kustomizeBuild(configDir("monitoring")).get("PrometheusRule", "gatewright")
				Expect(rule.Object["spec"]).To(Equal(want.Object["spec"]), "the alerts reach Prometheus as config/monitoring writes them, {{ $labels }} and all")
			}),
		Entry("shard: only the named GatewayClasses, no persona roles", "shard",
			nil,
			[]string{"ClusterRole/gatewright-provider", "ClusterRole/gatewright-tenant", "ClusterRole/gatewright-tenant-classes",
				"ClusterRole/gatewright-tenant-global-configs", "ClusterRole/gatewright-tenant-reader", "ClusterRole/gatewright-viewer"},
			[]string{"Deployment/gatewright-controller"},
			func(objs objects, notes string) {
				args := as[appsv1.Deployment](objs.get("Deployment", "gatewright-controller")).Spec.Template.Spec.Containers[0].Args
				Expect(args).To(ContainElement("--gateway-classes=internal,internal-tls"))
				Expect(notes).To(ContainSubstring("the GatewayClasses internal, internal-tls"))
			}),
		Entry("managed-resources: the controller manages exactly the listed kinds", "managed-resources",
			nil, nil, []string{"ClusterRole/gatewright-controller"},
			func(objs objects, _ string) {
				rules := clusterRoleGrants(objs, "gatewright-controller")
				Expect(rules).To(ContainElements("networking.k8s.io/ingresses delete", "cert-manager.io/certificates watch", "apps/deployments patch"))
				Expect(rules).NotTo(ContainElement(HavePrefix("autoscaling/")), "a list value replaces the default list")
			}),
		Entry("single-replica: one pinned replica, no disruption budget", "single-replica",
			nil, []string{"PodDisruptionBudget/gatewright-controller"}, []string{"Deployment/gatewright-controller"},
			func(objs objects, _ string) {
				deploy := as[appsv1.Deployment](objs.get("Deployment", "gatewright-controller"))
				Expect(deploy.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)))
				Expect(deploy.Spec.Template.Spec.Containers[0].Image).To(Equal("ghcr.io/gatewright/gatewright:" + loadChart().Metadata.AppVersion +
					"@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"))
			}),
	)

	DescribeTable("refuses values that values.schema.json does not allow",
		func(values, message string) {
			vals, err := chartutil.ReadValues([]byte(values))
			Expect(err).NotTo(HaveOccurred())
			_, err = helmTemplate(releaseName, "gatewright-system", vals)
			Expect(err).To(MatchError(And(ContainSubstring("values don't meet the specifications of the schema"), ContainSubstring(message))))
			Expect(lint.All(chartDir, vals, "gatewright-system", false).Messages).To(ContainElement(And(
				HaveField("Severity", support.ErrorSev), HaveField("Err", MatchError(ContainSubstring(message))))))
		},
		Entry("a misspelt key", "replicas: 3", "replicas"),
		Entry("a misspelt nested key", "metrics: {serviceMonitor: {enable: true}}", "enable"),
		Entry("a misspelt monitoring key", "monitoring: {prometheusRules: {enabled: true}}", "prometheusRules"),
		Entry("replicas as words", "replicaCount: two", "replicaCount"),
		Entry("no replicas", "replicaCount: 0", "replicaCount"),
		Entry("verbs on managed resources, which the chart fixes", "rbac: {managedResources: [{apiGroups: [apps], resources: [deployments], verbs: [get]}]}", "verbs"),
		Entry("a GatewayClass name that is not a DNS subdomain", "gatewayClasses: [Internet_Class]", "gatewayClasses"),
		Entry("an unknown log level", "logLevel: verbose", "logLevel"),
		Entry("a digest that is a tag", "image: {digest: latest}", "digest"),
	)
})

// matchSelector succeeds when the labels carry every label of selector.
func matchSelector(selector map[string]string) OmegaMatcher {
	Expect(selector).NotTo(BeEmpty(), "an empty selector selects every pod")
	var matchers []OmegaMatcher
	for k, v := range selector {
		matchers = append(matchers, HaveKeyWithValue(k, v))
	}
	return And(matchers...)
}

// valuePaths lists the dotted paths of the leaves of values: scalars, lists and empty maps.
func valuePaths(prefix string, values map[string]any) []string {
	var paths []string
	for k, v := range values {
		if nested, ok := v.(map[string]any); ok && len(nested) > 0 {
			paths = append(paths, valuePaths(prefix+k+".", nested)...)
			continue
		}
		paths = append(paths, prefix+k)
	}
	slices.Sort(paths)
	return paths
}

// rowFor reports whether path, or a value that contains it, has a row.
func rowFor(documented map[string]bool, path string) bool {
	for !documented[path] {
		dot := strings.LastIndex(path, ".")
		if dot < 0 {
			return false
		}
		path = path[:dot]
	}
	return true
}
