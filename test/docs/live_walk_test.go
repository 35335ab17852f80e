package docs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/controllers/manager"
	"github.com/gatewright/gatewright/internal/devcloud"
	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/test/testenv"
)

// settle bounds each wait for the controller to reach what a page shows: generous, for a
// loaded 2-core machine; a passing walk waits only as long as the controller takes.
const settle = 90 * time.Second

// TestDocsShowWhatTheLiveClusterPrints walks the pages' live examples as `make run` plays
// them: a control plane with the controller and the development simulation (Deployments
// become available, LoadBalancer Services get 198.51.100.x), the samples applied as the
// quick start applies them, then what the pages do to them, in this order: diff.md's
// provider changes, install.md's tenant grants with diff.md's tenant examples, the worked
// example's team-defaults.yaml, install.md's health checks, and the blueprint's edits that
// the revision numbers tell of. Each example is read from its page, and its commands are
// run as written: it must be what the cluster shows. Blocks left out, one line each:
//
//   - concepts.md, the first tree: a Deployment not yet available and a route object deleted by hand, gone again within a second.
//   - policies.md `gatewright explain gatewayconfig team`: its input is internal/explain/testdata/policy.yaml, which explain's tests run.
//   - rollout.md `kubectl get gcb internet -o jsonpath='{.status.rollout.excused}'`: a tenant's Gateway excused from a rollout under way.
//   - rollout.md "Roll out and watch": ten Gateways in a rollout's first wave, told with the times (40s ago, 4m20s left).
//   - rollout.md pause, resume, promote, abort, undo: a rollout under way of the blueprint internet; cmd/gatewright/rollout_live_test.go runs each.
//   - rollout.md `promote --force` and troubleshooting's `rollout status`: a wave rolled back at its 5-minute gate deadline.
func TestDocsShowWhatTheLiveClusterPrints(t *testing.T) {
	root := testenv.RepoRoot()
	bin := buildGatewright(t, root)
	live := startCluster(t)

	for _, dir := range []string{"samples/namespaces.yaml", "samples/provider", "samples/tenant"} {
		live.applyFiles(t, filepath.Join(root, dir))
	}
	concepts := filepath.Join(root, "docs", "concepts.md")
	policies := filepath.Join(root, "docs", "policies.md")

	t.Run("policies.md: kubectl get gatewright -n team-a", func(t *testing.T) {
		want := shownOutput(t, policies, "kubectl get gatewright -n team-a")
		NewWithT(t).Eventually(func() string { return live.compareCategory(t, "gatewright", "team-a", want) }, settle).Should(BeEmpty())
	})
	t.Run("policies.md: the provider's global config", func(t *testing.T) {
		want := yamlAfter(t, policies, "The provider's global config of the samples")
		NewWithT(t).Eventually(func() string {
			return live.compareStatus(t, "/apis/gatewright.dev/v1alpha1/namespaces/gatewright-system/gatewayclassconfigs/internet-defaults", want)
		}, settle).Should(BeEmpty())
	})
	t.Run("policies.md: a GatewayConfig with one bad target of each kind", func(t *testing.T) {
		want := yamlAfter(t, policies, "A GatewayConfig with one bad target of each kind")
		live.apply(t, wrongTargets(t, want))
		NewWithT(t).Eventually(func() string {
			return live.compareStatus(t, "/apis/gatewright.dev/v1alpha1/namespaces/team-a/gatewayconfigs/wrong-targets", want)
		}, settle).Should(BeEmpty())
		live.delete(t, "/apis/gatewright.dev/v1alpha1/namespaces/team-a/gatewayconfigs/wrong-targets")
	})
	t.Run("concepts.md: kubectl get gateway -n team-a", func(t *testing.T) {
		want := shownOutput(t, concepts, "kubectl get gateway -n team-a")
		NewWithT(t).Eventually(func() string {
			return live.compareTable(t, "/apis/gateway.networking.k8s.io/v1/namespaces/team-a/gateways", "", want, nil)
		}, settle).Should(BeEmpty())
	})
	t.Run("concepts.md: kubectl get gateway web -n team-a -o yaml", func(t *testing.T) {
		want := strings.Join(shownOutput(t, concepts, "kubectl get gateway web -n team-a -o yaml"), "\n")
		NewWithT(t).Eventually(func() string {
			return live.compareStatus(t, "/apis/gateway.networking.k8s.io/v1/namespaces/team-a/gateways/web", want)
		}, settle).Should(BeEmpty())
	})
	walkProviderDiffs(t, live, bin)
	walkTenants(t, live, bin)

	// The worked example: team-defaults.yaml, applied server-side as the page says.
	example := examplesShowing(t, concepts, "gatewright explain gateway web -n team-a", 0)
	live.apply(t, example.files["team-defaults.yaml"])
	t.Run("concepts.md: gatewright explain gateway web -n team-a", func(t *testing.T) {
		NewWithT(t).Eventually(func() []string {
			return run(t, bin, live.kubeconfig, example.command)
		}, settle).Should(Equal(example.output))
	})
	t.Run("concepts.md: the Programmed message of team-defaults", func(t *testing.T) {
		jsonpath := examplesShowing(t, concepts, "kubectl get gwc team-defaults -n team-a -o jsonpath=", 0)
		NewWithT(t).Eventually(func() []string {
			return []string{live.ancestorCondition(t, "/apis/gatewright.dev/v1alpha1/namespaces/team-a/gatewayconfigs/team-defaults", "Programmed").Message}
		}, settle).Should(Equal(jsonpath.output))
	})

	walkHealthChecks(t, live, bin)
	walkRevisions(t, live, bin)

	// The second tree of concepts.md: the class's blueprint deleted before the Gateway was
	// first rendered, which deleting the Gateway and applying it again replays.
	t.Run("concepts.md: gatewright tree gateway web -n team-a, nothing rendered", func(t *testing.T) {
		tree := examplesShowing(t, concepts, "gatewright tree gateway web -n team-a", 1)
		live.delete(t, "/apis/gatewright.dev/v1alpha1/gatewayclassblueprints/simple-proxy")
		live.delete(t, "/apis/gateway.networking.k8s.io/v1/namespaces/team-a/gateways/web")
		NewWithT(t).Eventually(func() bool {
			return live.gone(t, "/apis/gateway.networking.k8s.io/v1/namespaces/team-a/gateways/web")
		}, settle).Should(BeTrue(), "the Gateway is deleted once its objects are cleaned up")
		live.applyFiles(t, filepath.Join(root, "samples/tenant/gateway.yaml"))
		NewWithT(t).Eventually(func() []string {
			return run(t, bin, live.kubeconfig, tree.command)
		}, settle).Should(Equal(tree.output))
	})
}

// liveCluster is the control plane with the controller and the simulation running.
type liveCluster struct {
	k8s        client.Client
	rest       rest.Interface
	discovery  discovery.DiscoveryInterface
	kubeconfig string
}

func startCluster(t *testing.T) *liveCluster {
	t.Helper()
	ctrl.SetLogger(logr.Discard())
	env, cfg, k8s, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	t.Cleanup(func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	})
	go func() {
		done <- manager.Run(ctx, cfg, manager.Options{ControllerNamespace: manager.DefaultControllerNamespace, MetricsAddress: "0", ProbeAddress: "0"})
	}()
	simulation, err := ctrl.NewManager(cfg, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := devcloud.Setup(simulation); err != nil {
		t.Fatal(err)
	}
	go func() { done <- simulation.Start(ctx) }()
	return &liveCluster{k8s: k8s, rest: clientset.RESTClient(), discovery: clientset.Discovery(), kubeconfig: kubeconfig}
}

// applyFiles applies a file, or the YAML files of a folder, as `kubectl apply -f` would.
func (c *liveCluster) applyFiles(t *testing.T, path string) {
	t.Helper()
	files := []string{path}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*.yaml"))
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c.apply(t, string(data))
	}
}

// apply applies a YAML stream server-side, as `kubectl apply --server-side`, which keeps
// a null of a policy's values (policies.md, "Unsetting with null").
func (c *liveCluster) apply(t *testing.T, stream string) {
	t.Helper()
	objs, err := manifest.Decode([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objs {
		if err := c.k8s.Apply(t.Context(), client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

func (c *liveCluster) delete(t *testing.T, path string) {
	t.Helper()
	if err := c.rest.Delete().AbsPath(path).Do(t.Context()).Error(); err != nil {
		t.Fatal(err)
	}
}

func (c *liveCluster) gone(t *testing.T, path string) bool {
	t.Helper()
	err := c.rest.Get().AbsPath(path).Do(t.Context()).Error()
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("GET %s: %v", path, err)
	}
	return apierrors.IsNotFound(err)
}

func (c *liveCluster) get(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := c.rest.Get().AbsPath(path).DoRaw(t.Context())
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// ancestorCondition is the condition of the policy's first ancestor, as the page's
// jsonpath `{.status.ancestors[0].conditions[?(@.type=="...")]}` reads it.
func (c *liveCluster) ancestorCondition(t *testing.T, path, conditionType string) metav1.Condition {
	t.Helper()
	var status struct {
		Ancestors []struct{ Conditions []metav1.Condition }
	}
	raw, _ := json.Marshal(c.get(t, path)["status"])
	if err := json.Unmarshal(raw, &status); err != nil {
		t.Fatal(err)
	}
	if len(status.Ancestors) > 0 {
		for _, cond := range status.Ancestors[0].Conditions {
			if cond.Type == conditionType {
				return cond
			}
		}
	}
	return metav1.Condition{}
}

// compareStatus compares the status an excerpt shows with the object's, "" when they
// agree. An excerpt shows some fields: "..." lines abridge, a field it leaves out is not
// compared, except a condition's message, which left out must be empty; the conditions'
// lastTransitionTime and observedGeneration are never shown (policies.md says so), and
// conditions are matched by type, in any order.
func (c *liveCluster) compareStatus(t *testing.T, path, excerpt string) string {
	t.Helper()
	var shown map[string]any
	var kept []string
	for _, l := range strings.Split(excerpt, "\n") {
		if strings.TrimSpace(l) != "..." {
			kept = append(kept, l)
		}
	}
	if err := yaml.Unmarshal([]byte(strings.Join(kept, "\n")), &shown); err != nil {
		t.Fatalf("the page's excerpt does not parse: %v\n%s", err, excerpt)
	}
	status, _ := c.get(t, path)["status"].(map[string]any)
	if diff := contains("status", shown["status"], status); diff != "" {
		got, _ := yaml.Marshal(status)
		return diff + "\nthe object's status:\n" + string(got)
	}
	return ""
}

// contains says where got differs from what shown shows, "" nowhere.
func contains(at string, shown, got any) string {
	switch s := shown.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: the page shows an object, the cluster has %v", at, got)
		}
		if _, isCondition := s["reason"]; isCondition && s["message"] == nil && g["message"] != nil && g["message"] != "" {
			return fmt.Sprintf("%s.message: the page shows none, the cluster says %q", at, g["message"])
		}
		for k, v := range s {
			if diff := contains(at+"."+k, v, g[k]); diff != "" {
				return diff
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return fmt.Sprintf("%s: the page shows %d entries, the cluster has %v", at, len(s), got)
		}
		for i := range s {
			if diff := contains(fmt.Sprintf("%s[%d]", at, i), s[i], sameType(s[i], g, i)); diff != "" {
				return diff
			}
		}
		return ""
	}
	if fmt.Sprint(shown) != fmt.Sprint(got) {
		return fmt.Sprintf("%s: the page shows %v, the cluster has %v", at, shown, got)
	}
	return ""
}

// sameType is the entry of got to compare with shown, the i-th of a list: the one of
// shown's type when shown is a condition, whose order in a status is the order the
// controller first set them in, not a meaning.
func sameType(shown any, got []any, i int) any {
	if s, ok := shown.(map[string]any); ok && s["type"] != nil {
		for _, g := range got {
			if g, ok := g.(map[string]any); ok && g["type"] == s["type"] {
				return g
			}
		}
	}
	return got[i]
}

// compareCategory compares what `kubectl get CATEGORY -n namespace` prints, one table per
// kind with objects, with the tables the page shows, "" when they agree. Tables are
// matched by kind: their order is kubectl's.
func (c *liveCluster) compareCategory(t *testing.T, category, namespace string, shown []string) string {
	t.Helper()
	tables := map[string][]string{} // the page's tables by the kind.group their names start with
	for _, table := range splitTables(shown) {
		if len(table) < 2 {
			return fmt.Sprintf("a table of the page has no rows: %q", table)
		}
		kind, _, _ := strings.Cut(strings.Fields(table[1])[0], "/")
		tables[kind] = table
	}
	resources, err := c.discovery.ServerResourcesForGroupVersion("gatewright.dev/v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, r := range resources.APIResources {
		if !slices.Contains(r.Categories, category) {
			continue
		}
		path := "/apis/gatewright.dev/v1alpha1/" + r.Name
		if r.Namespaced {
			path = "/apis/gatewright.dev/v1alpha1/namespaces/" + namespace + "/" + r.Name
		}
		kind := r.SingularName + ".gatewright.dev"
		table, ok := tables[kind]
		delete(tables, kind)
		if !ok {
			if rows := len(c.table(t, path).Rows); rows > 0 {
				problems = append(problems, fmt.Sprintf("the cluster lists %d %s, the page none", rows, r.Name))
			}
			continue
		}
		if diff := c.compareTable(t, path, kind+"/", table, nil); diff != "" {
			problems = append(problems, diff)
		}
	}
	for kind := range tables {
		problems = append(problems, "the page lists "+kind+", which the cluster does not")
	}
	return strings.Join(problems, "\n")
}

func splitTables(lines []string) [][]string {
	var tables [][]string
	var table []string
	for _, l := range append(lines, "") {
		if l == "" {
			if table != nil {
				tables = append(tables, table)
			}
			table = nil
			continue
		}
		table = append(table, l)
	}
	return tables
}

func (c *liveCluster) table(t *testing.T, path string) metav1.Table {
	t.Helper()
	raw, err := c.rest.Get().AbsPath(path).SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("GET %s as a Table: %v", path, err)
	}
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	return table
}

var columnGap = regexp.MustCompile(`\S+( \S+)*`)

// compareTable compares the API server's Table of path, printed as kubectl prints it
// (upper-case headers, no -o wide columns, names prefixed with namePrefix), with the
// table the page shows, "" when they agree. The page's cells are cut at its headers'
// columns; AGE is never compared, nor the unstable columns, each with its reason.
func (c *liveCluster) compareTable(t *testing.T, path, namePrefix string, shown []string, unstable map[string]string) string {
	t.Helper()
	live := c.table(t, path)
	var headers []string
	var visible []int
	for i, col := range live.ColumnDefinitions {
		if col.Priority == 0 {
			headers = append(headers, strings.ToUpper(col.Name))
			visible = append(visible, i)
		}
	}
	var rows [][]string
	for _, row := range live.Rows {
		var cells []string
		for _, i := range visible {
			cell := ""
			if row.Cells[i] != nil {
				cell = fmt.Sprint(row.Cells[i])
			}
			cells = append(cells, cell)
		}
		cells[0] = namePrefix + cells[0]
		rows = append(rows, cells)
	}
	bounds := columnGap.FindAllStringIndex(shown[0], -1)
	var shownHeaders []string
	for _, b := range bounds {
		shownHeaders = append(shownHeaders, shown[0][b[0]:b[1]])
	}
	if !slices.Equal(shownHeaders, headers) {
		return fmt.Sprintf("%s: the page shows the columns %q, the cluster %q", path, shownHeaders, headers)
	}
	if len(shown)-1 != len(rows) {
		return fmt.Sprintf("%s: the page shows %d rows, the cluster has %d: %q", path, len(shown)-1, len(rows), rows)
	}
	for r, line := range shown[1:] {
		for i, header := range headers {
			if _, skip := unstable[header]; skip || header == "AGE" {
				continue
			}
			end := len(line)
			if i+1 < len(bounds) {
				end = min(bounds[i+1][0], len(line))
			}
			cell := strings.TrimSpace(line[min(bounds[i][0], len(line)):end])
			if cell != rows[r][i] {
				return fmt.Sprintf("%s: row %d, %s: the page shows %q, the cluster %q", path, r+1, header, cell, rows[r][i])
			}
		}
	}
	return ""
}

// wrongTargets is the GatewayConfig wrong-targets whose status the page shows: its
// targets are the ancestors the status names.
func wrongTargets(t *testing.T, excerpt string) string {
	t.Helper()
	var shown struct {
		Status struct {
			Ancestors []struct {
				AncestorRef struct{ Group, Kind, Name string } `json:"ancestorRef"`
			}
		}
	}
	if err := yaml.Unmarshal([]byte(excerpt), &shown); err != nil {
		t.Fatal(err)
	}
	policy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gatewright.dev/v1alpha1", "kind": "GatewayConfig",
		"metadata": map[string]any{"name": "wrong-targets", "namespace": "team-a"},
	}}
	var targets []any
	for _, a := range shown.Status.Ancestors {
		targets = append(targets, map[string]any{"group": a.AncestorRef.Group, "kind": a.AncestorRef.Kind, "name": a.AncestorRef.Name})
	}
	if len(targets) == 0 {
		t.Fatal("the page's wrong-targets status names no ancestors")
	}
	policy.Object["spec"] = map[string]any{"targetRefs": targets}
	out, err := yaml.Marshal(policy.Object)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// shownOutput is what the page shows after `$ command`, the first time it shows it.
func shownOutput(t *testing.T, page, command string) []string {
	t.Helper()
	return examplesShowing(t, page, command, 0).output
}

// examplesShowing is the page's example whose command starts with command, the nth
// (from 0) of those.
func examplesShowing(t *testing.T, page, command string, nth int) example {
	t.Helper()
	for _, ex := range examples(t, page) {
		if strings.HasPrefix(ex.command, command) {
			if nth == 0 {
				return ex
			}
			nth--
		}
	}
	t.Fatalf("%s shows no `%s`: the live walk has lost its way", page, command)
	return example{}
}

// yamlAfter is the first YAML block of the page after the prose that contains lead.
func yamlAfter(t *testing.T, page, lead string) string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(string(data), lead)
	if !found {
		t.Fatalf("%s does not say %q: the live walk has lost its way", page, lead)
	}
	_, block, found := strings.Cut(rest, "```yaml\n")
	if !found {
		t.Fatalf("%s shows no YAML after %q", page, lead)
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}
