package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/gatewright/gatewright/config/crd"
	"github.com/gatewright/gatewright/test/testenv"
)

// configDir is a kustomization under config/.
func configDir(name string) string {
	return filepath.Join(testenv.RepoRoot(), "config", name)
}

// kustomizeBuild builds the kustomization in dir as `kubectl kustomize` does.
func kustomizeBuild(dir string) objects {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	Expect(err).NotTo(HaveOccurred())
	data, err := resources.AsYaml()
	Expect(err).NotTo(HaveOccurred())
	return decodeObjects(data)
}

var _ = Describe("config/default", func() {
	var built, chart objects
	BeforeEach(func() {
		built = kustomizeBuild(configDir("default"))
		chart, _ = renderCI("gatewright-system", "default")
	})

	It("builds objects the API server accepts", func(ctx SpecContext) {
		// Namespaced objects need their namespace to exist, even in a dry run.
		namespace := built.get("Namespace", "gatewright-system").DeepCopy()
		Expect(k8s.Create(ctx, namespace)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(k8s.Delete(ctx, namespace)).To(Succeed()) })
		for _, obj := range built {
			Expect(dryRunApply(ctx, obj)).To(Succeed(), key(obj))
		}
		pod := podOf(built.get("Deployment", "gatewright-controller"), "gatewright-system")
		Expect(k8s.Create(ctx, pod, client.DryRunAll)).To(Succeed(), "the namespace enforces the restricted Pod Security Standard")
	})

	It("installs every Gatewright CRD, and not the Gateway API's", func() {
		crds, err := crd.All()
		Expect(err).NotTo(HaveOccurred())
		var gatewright []string
		for _, c := range crds {
			if c.Spec.Group == "gatewright.dev" {
				gatewright = append(gatewright, c.Name)
			}
		}
		var installed []string
		for _, obj := range built {
			if obj.GetKind() == "CustomResourceDefinition" {
				installed = append(installed, obj.GetName())
			}
		}
		slices.Sort(installed)
		Expect(installed).To(Equal(gatewright))
	})

	It("holds the chart's kinds, plus the CRDs and the namespace that Helm installs apart", func() {
		want := append(chart.kinds(), "CustomResourceDefinition", "Namespace")
		slices.Sort(want)
		Expect(built.kinds()).To(Equal(want))
		for _, obj := range built {
			if obj.GetKind() != "CustomResourceDefinition" && obj.GetKind() != "Namespace" && obj.GetNamespace() != "" {
				Expect(obj.GetNamespace()).To(Equal("gatewright-system"), key(obj))
			}
		}
	})

	It("grants the controller and the personas what the chart grants", func() {
		for _, role := range []string{"gatewright-controller", "gatewright-tenant", "gatewright-viewer", "gatewright-provider",
			"gatewright-tenant-classes", "gatewright-tenant-global-configs", "gatewright-tenant-reader"} {
			Expect(clusterRoleGrants(built, role)).To(Equal(clusterRoleGrants(chart, role)), role)
			Expect(aggregationLabels(built.get("ClusterRole", role).GetLabels())).
				To(Equal(aggregationLabels(chart.get("ClusterRole", role).GetLabels())), role)
		}
	})

	It("moves with an overlay that sets another namespace, bindings included", func() {
		overlay := GinkgoT().TempDir()
		base, err := filepath.Rel(overlay, configDir("default"))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(
			"namespace: platform-gateways\nresources: ["+base+"]\n"), 0o644)).To(Succeed())
		moved := kustomizeBuild(overlay)
		Expect(moved.get("Namespace", "platform-gateways")).NotTo(BeNil())
		for _, obj := range moved {
			if obj.GetNamespace() != "" {
				Expect(obj.GetNamespace()).To(Equal("platform-gateways"), key(obj))
			}
			if obj.GetKind() == "RoleBinding" || obj.GetKind() == "ClusterRoleBinding" {
				subjects, _, _ := unstructured.NestedSlice(obj.Object, "subjects")
				Expect(subjects).To(HaveEach(HaveKeyWithValue("namespace", "platform-gateways")), key(obj))
			}
		}
	})

	It("runs the controller as the chart does", func() {
		wantDeploy := as[appsv1.Deployment](chart.get("Deployment", "gatewright-controller"))
		gotDeploy := as[appsv1.Deployment](built.get("Deployment", "gatewright-controller"))
		Expect(gotDeploy.Spec.Replicas).To(Equal(wantDeploy.Spec.Replicas))
		want, got := wantDeploy.Spec.Template.Spec, gotDeploy.Spec.Template.Spec
		Expect(got.SecurityContext).To(Equal(want.SecurityContext))
		Expect(got.TopologySpreadConstraints).To(HaveLen(len(want.TopologySpreadConstraints)))
		container, wantContainer := got.Containers[0], want.Containers[0]
		Expect(container.Image).To(Equal(wantContainer.Image))
		Expect(container.SecurityContext).To(Equal(wantContainer.SecurityContext))
		Expect(container.Resources).To(Equal(wantContainer.Resources))
		Expect(container.Ports).To(Equal(wantContainer.Ports))
		Expect(container.LivenessProbe).To(Equal(wantContainer.LivenessProbe))
		Expect(container.ReadinessProbe).To(Equal(wantContainer.ReadinessProbe))
		// kustomize cannot template the namespace into a flag; the pod's own namespace does.
		Expect(container.Env).To(ContainElement(HaveField("ValueFrom.FieldRef.FieldPath", "metadata.namespace")))
		Expect(container.Args).To(Equal(withArg(wantContainer.Args, "--controller-namespace=", "$(POD_NAMESPACE)")))

		Expect(as[policyv1.PodDisruptionBudget](built.get("PodDisruptionBudget", "gatewright-controller")).Spec.MaxUnavailable).
			To(Equal(as[policyv1.PodDisruptionBudget](chart.get("PodDisruptionBudget", "gatewright-controller")).Spec.MaxUnavailable))
		Expect(as[corev1.Service](built.get("Service", "gatewright-metrics")).Spec.Ports).
			To(Equal(as[corev1.Service](chart.get("Service", "gatewright-metrics")).Spec.Ports))
	})

	// A Deployment's selector is immutable: had the two installs different selectors,
	// replacing one with the other would fail with "field is immutable".
	It("selects the controller's pods as the chart does, so that either install can replace the other", func(ctx SpecContext) {
		wantDeploy := as[appsv1.Deployment](chart.get("Deployment", "gatewright-controller"))
		gotDeploy := as[appsv1.Deployment](built.get("Deployment", "gatewright-controller"))
		Expect(gotDeploy.Spec.Selector).To(Equal(wantDeploy.Spec.Selector))
		Expect(gotDeploy.Spec.Template.Labels).To(matchSelector(gotDeploy.Spec.Selector.MatchLabels))
		for i, constraint := range gotDeploy.Spec.Template.Spec.TopologySpreadConstraints {
			Expect(constraint.LabelSelector).To(Equal(wantDeploy.Spec.Template.Spec.TopologySpreadConstraints[i].LabelSelector), constraint.TopologyKey)
		}
		Expect(as[policyv1.PodDisruptionBudget](built.get("PodDisruptionBudget", "gatewright-controller")).Spec.Selector).
			To(Equal(as[policyv1.PodDisruptionBudget](chart.get("PodDisruptionBudget", "gatewright-controller")).Spec.Selector))
		Expect(as[corev1.Service](built.get("Service", "gatewright-metrics")).Spec.Selector).
			To(Equal(as[corev1.Service](chart.get("Service", "gatewright-metrics")).Spec.Selector))

		By("applying the chart's Deployment over the one kustomize created, as a switch does")
		namespace := newNamespace(ctx, "switch", nil)
		kustomized := built.get("Deployment", "gatewright-controller").DeepCopy()
		kustomized.SetNamespace(namespace)
		Expect(k8s.Create(ctx, kustomized)).To(Succeed())
		helmed := chart.get("Deployment", "gatewright-controller").DeepCopy()
		helmed.SetNamespace(namespace)
		Expect(dryRunApply(ctx, helmed)).To(Succeed())
	})
})

// aggregationLabels are the labels that join a ClusterRole to an aggregated one.
func aggregationLabels(labels map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range labels {
		if strings.HasPrefix(k, "rbac.authorization.k8s.io/aggregate-to-") {
			out[k] = v
		}
	}
	return out
}

// withArg returns args with the value of the flag that has prefix replaced.
func withArg(args []string, prefix, value string) []string {
	out := slices.Clone(args)
	for i, arg := range out {
		if strings.HasPrefix(arg, prefix) {
			out[i] = prefix + value
		}
	}
	return out
}
