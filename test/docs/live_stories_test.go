package docs_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/test/testenv"
)

// walkProviderDiffs replays diff.md's provider examples: the samples' class-wide
// GatewayClassConfig with its limits raised, then with replicas past the valuesSchema,
// each the file the page shows.
func walkProviderDiffs(t *testing.T, live *liveCluster, bin string) {
	page := filepath.Join(testenv.RepoRoot(), "docs", "diff.md")
	t.Run("diff.md: the provider raises the limits", func(t *testing.T) {
		replay(t, bin, live.kubeconfig, blockAfter(t, page, "the provider raises the proxy's limits"))
	})
	t.Run("diff.md: an override past the valuesSchema", func(t *testing.T) {
		replay(t, bin, live.kubeconfig, blockAfter(t, page, "An override of `replicas: 50`"))
	})
}

// walkHealthChecks follows install.md's health in GitOps tools: kubectl wait on the
// worked example's GatewayConfig and the blueprint, and Argo CD's health checks merged
// into an argocd-cm that Argo CD's install already wrote, with the page's own command,
// which must leave Argo CD's keys as they are.
func walkHealthChecks(t *testing.T, live *liveCluster, bin string) {
	page := filepath.Join(testenv.RepoRoot(), "docs", "install.md")
	t.Run("install.md: kubectl wait", func(t *testing.T) {
		for _, command := range shellAfter(t, page, "`kubectl wait` reads the same conditions") {
			out, status := runIn(t, bin, live.kubeconfig, "", command)
			if status != 0 || len(out) != 1 || !strings.HasSuffix(out[0], " condition met") {
				t.Errorf("$ %s\nexits %d:\n%s", command, status, strings.Join(out, "\n"))
			}
		}
	})
	t.Run("install.md: Argo CD's health checks merged into argocd-cm", func(t *testing.T) {
		argocd := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "argocd-cm", Namespace: "argocd", Labels: map[string]string{"app.kubernetes.io/name": "argocd-cm", "app.kubernetes.io/part-of": "argocd"}},
			Data:       map[string]string{"url": "https://argocd.example.com"},
		}
		if err := live.k8s.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "argocd"}}); err != nil {
			t.Fatal(err)
		}
		if err := live.k8s.Create(t.Context(), argocd, client.FieldOwner("argocd-install")); err != nil {
			t.Fatal(err)
		}
		commands := shellAfter(t, page, "which leaves every other key as it is")
		if len(commands) != 1 {
			t.Fatalf("install.md shows %q, want the one command that merges argocd-cm.yaml", commands)
		}
		out, status := runIn(t, bin, live.kubeconfig, testenv.RepoRoot(), commands[0])
		if status != 0 {
			t.Fatalf("$ %s\nexits %d:\n%s", commands[0], status, strings.Join(out, "\n"))
		}
		raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "argocd", "argocd-cm.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var shipped corev1.ConfigMap
		if err := yaml.Unmarshal(raw, &shipped); err != nil {
			t.Fatal(err)
		}
		if err := live.k8s.Get(t.Context(), types.NamespacedName{Namespace: "argocd", Name: "argocd-cm"}, argocd); err != nil {
			t.Fatal(err)
		}
		if argocd.Data["url"] != "https://argocd.example.com" {
			t.Errorf("Argo CD's own key url is %q after the merge, want it as it was", argocd.Data["url"])
		}
		for key, script := range shipped.Data {
			if argocd.Data[key] != script {
				t.Errorf("argocd-cm's %s is not the shipped script after the merge", key)
			}
		}
		if want := len(shipped.Data) + 1; len(argocd.Data) != want {
			t.Errorf("argocd-cm has the keys %v, want Argo CD's url and the %d shipped", slices.Sorted(maps.Keys(argocd.Data)), len(shipped.Data))
		}
	})
}

// walkRevisions plays the revision numbers the pages show: the samples' blueprint edited
// twice (revision 3: concepts.md's blueprint, revisions and Renderings, security.md's
// Renderings), then a third time as blueprints.md applies it (revision 4). Each edit
// changes the blueprint's default image, which the worked example's GatewayConfig
// overrides, so no Gateway's objects change. The blueprint rolls out all at once, a
// spec.rollout change that makes no revision, so that each edit completes in seconds
// rather than after a wave's 30-second soak.
func walkRevisions(t *testing.T, live *liveCluster, bin string) {
	root := testenv.RepoRoot()
	blueprint, err := os.ReadFile(filepath.Join(root, "samples", "provider", "blueprint.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const image = "envoyproxy/envoy:v1.36.2"
	if !strings.Contains(string(blueprint), image) {
		t.Fatalf("the samples' blueprint no longer has the default image %s: the live walk has lost its way", image)
	}
	edit := func(revision int) string {
		return strings.Replace(string(blueprint), image, fmt.Sprintf("envoyproxy/envoy:v1.36.%d", 1+revision), 1)
	}
	path := "/apis/gatewright.dev/v1alpha1/gatewayclassblueprints/simple-proxy"
	if err := live.rest.Patch(types.MergePatchType).AbsPath(path).Body([]byte(`{"spec":{"rollout":{"strategy":"AllAtOnce"}}}`)).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
	for revision := 2; revision <= 3; revision++ {
		live.apply(t, edit(revision))
		NewWithT(t).Eventually(func() any {
			status, _ := live.get(t, path)["status"].(map[string]any)
			return status["currentRevision"]
		}, settle).Should(BeEquivalentTo(revision))
	}

	concepts := filepath.Join(root, "docs", "concepts.md")
	t.Run("concepts.md: kubectl get gcb", func(t *testing.T) {
		replay(t, bin, live.kubeconfig, blockShowing(t, concepts, "kubectl get gcb"))
	})
	t.Run("concepts.md: kubectl get gcbr", func(t *testing.T) {
		replay(t, bin, live.kubeconfig, blockShowing(t, concepts, "kubectl get gcbr"))
	})
	t.Run("concepts.md: kubectl get renderings -n team-a", func(t *testing.T) {
		replay(t, bin, live.kubeconfig, blockShowing(t, concepts, "kubectl get renderings -n team-a"))
	})
	t.Run("security.md: kubectl get renderings -n team-a", func(t *testing.T) {
		replay(t, bin, live.kubeconfig, blockShowing(t, filepath.Join(root, "docs", "security.md"), "kubectl get renderings -n team-a"))
	})
	t.Run("blueprints.md: what you see after an edit", func(t *testing.T) {
		block := blockShowing(t, filepath.Join(root, "docs", "blueprints.md"), "kubectl apply -f blueprint.yaml")
		block[0].files = map[string]string{"blueprint.yaml": edit(4)}
		replay(t, bin, live.kubeconfig, block)
	})
}
