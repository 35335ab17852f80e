package blueprints_test

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	// Pins the cert-manager module, whose deploy/crds the test installs, in go.mod.
	_ "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/test/testenv"
)

// unchecked are the API groups the blueprints render whose CRDs no Go module served to us
// carries (the blueprints' READMEs say so); every other object must pass a dry run.
var unchecked = map[string]string{
	"ec2.aws.upbound.io":   "Crossplane's Upbound AWS provider is not served by the Go module proxy",
	"elbv2.aws.upbound.io": "Crossplane's Upbound AWS provider is not served by the Go module proxy",
}

// TestTargetsAcceptEveryRenderedObject installs the CRDs of the systems the blueprints
// target into a real API server and server-side dry-runs, with strict field validation,
// every object the golden tests render (the Gateway's and its routes' alike) and, for the
// example input, every Gateway's objects once its chain has converged (the DNS records
// hold endpoints only then).
func TestTargetsAcceptEveryRenderedObject(t *testing.T) {
	k8s := startTargets(t)
	ctx := context.Background()
	namespaces := map[string]bool{}
	for _, name := range blueprints {
		inputs, err := filepath.Glob(filepath.Join(name, "testdata", "*.in.yaml"))
		if err != nil || len(inputs) == 0 {
			t.Fatalf("%s has no testdata/*.in.yaml: %v", name, err)
		}
		for _, input := range inputs {
			testCase := strings.TrimSuffix(filepath.Base(input), ".in.yaml")
			t.Run(name+"/"+testCase, func(t *testing.T) {
				rendered, err := load(t, filepath.Join(name, "blueprint.yaml"), input).Render(controllerNamespace, "")
				if err != nil {
					t.Fatal(err)
				}
				objs := renderedObjects(rendered)
				if testCase == "example" {
					objs = appendNew(objs, convergedObjects(t, name, rendered))
				}
				checked := 0
				skipped := map[string][]string{}
				for _, obj := range objs {
					if reason, skip := unchecked[obj.GroupVersionKind().Group]; skip {
						if !slices.Contains(skipped[reason], obj.GetKind()) {
							skipped[reason] = append(skipped[reason], obj.GetKind())
						}
						continue
					}
					if ns := obj.GetNamespace(); ns != "" && !namespaces[ns] {
						createNamespace(t, k8s, ns)
						namespaces[ns] = true
					}
					if err := k8s.Create(ctx, obj, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
						t.Errorf("%s %s/%s: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
					}
					checked++
				}
				if checked == 0 {
					t.Error("no rendered object was checked")
				}
				for _, reason := range slices.Sorted(maps.Keys(skipped)) {
					kinds := skipped[reason]
					slices.Sort(kinds)
					t.Logf("not checked, %s: %s", reason, strings.Join(kinds, ", "))
				}
			})
		}
	}
}

// startTargets starts the test API server with the Gateway API and Gatewright CRDs and
// those of the blueprints' targets.
func startTargets(t *testing.T) client.Client {
	t.Helper()
	env, err := testenv.New()
	if err != nil {
		t.Fatal(err)
	}
	env.CRDInstallOptions.Paths = []string{
		filepath.Join(moduleDir(t, "github.com/cert-manager/cert-manager"), "deploy", "crds"),
		filepath.Join("testdata", "crds"),
	}
	env.ErrorIfCRDPathMissing = true
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	k8s, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return k8s
}

// moduleDir is where the module cache holds the version of module that go.mod requires.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	return listModule(t, module).Dir
}

// moduleVersion is the version of module that go.mod requires.
func moduleVersion(t *testing.T, module string) string {
	t.Helper()
	return listModule(t, module).Version
}

type listedModule struct{ Version, Dir string }

func listModule(t *testing.T, module string) listedModule {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	var listed listedModule
	if err := json.Unmarshal(out, &listed); err != nil || listed.Dir == "" || listed.Version == "" {
		t.Fatalf("go list -m %s gave no folder or version (%v): %s", module, err, out)
	}
	return listed
}

func createNamespace(t *testing.T, k8s client.Client, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := k8s.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// convergedObjects renders each Gateway of the example as the controller does once the
// objects it waits for report their status (liveGateway.converge).
func convergedObjects(t *testing.T, blueprint string, rendered []offline.Rendered) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, r := range rendered {
		if r.Route == "" {
			out = append(out, newLiveGateway(t, blueprint, r.Gateway).converge(t).Objects...)
		}
	}
	return out
}

// appendNew appends the objects of more that objs does not already hold.
func appendNew(objs, more []*unstructured.Unstructured) []*unstructured.Unstructured {
	have := len(objs)
	for _, obj := range more {
		if !slices.ContainsFunc(objs[:have], func(o *unstructured.Unstructured) bool { return equality.Semantic.DeepEqual(o, obj) }) {
			objs = append(objs, obj)
		}
	}
	return objs
}

func renderedObjects(rendered []offline.Rendered) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, r := range rendered {
		out = append(out, r.Objects...)
	}
	return out
}
