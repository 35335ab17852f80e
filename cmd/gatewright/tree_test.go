package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/test/golden"
	"github.com/gatewright/gatewright/test/testenv"
)

// TestTreeCommand runs `gatewright tree` against a control plane holding what the
// controller would have made for the samples: no controller runs, so the Renderings,
// objects and conditions are written here, one object missing and one not ready.
func TestTreeCommand(t *testing.T) {
	env, _, k8s, err := testenv.Start()
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
	createTreeFixture(t, k8s)

	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"a Gateway", []string{"gateway", "web", "-n", "team-a"}, "gateway.out"},
		{"a Gateway, wide", []string{"gateway", "web", "-n", "team-a", "-o", "wide"}, "gateway-wide.out"},
		{"a Gateway as JSON", []string{"gateway", "web", "-n", "team-a", "-o", "json"}, "gateway.json.out"},
		{"an HTTPRoute", []string{"httproute", "shop", "-n", "team-b"}, "httproute.out"},
		{"a Gateway with nothing rendered says why", []string{"gateway", "bare", "-n", "team-a"}, "gateway-bare.out"},
		{"a Gateway never seen by a controller says what to check", []string{"gateway", "unseen", "-n", "team-a"}, "gateway-unseen.out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetArgs(append([]string{"tree", "--kubeconfig", kubeconfig}, tt.args...))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "tree", tt.golden), out.Bytes())
		})
	}

	errorTests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown Gateway", []string{"gateway", "nope", "-n", "team-a"}, "Gateway team-a/nope not found"},
		{"an unknown HTTPRoute", []string{"httproute", "nope", "-n", "team-b"}, "HTTPRoute team-b/nope not found"},
		{"an unknown output format", []string{"gateway", "web", "-n", "team-a", "-o", "yaml"}, "--output must be wide or json"},
	}
	for _, tt := range errorTests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newRootCommand()
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SetArgs(append([]string{"tree", "--kubeconfig", kubeconfig}, tt.args...))
			err := cmd.Execute()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	// Last: it changes the fixture.
	t.Run("--watch prints the tree again when it changes", func(t *testing.T) { testTreeWatch(t, kubeconfig, k8s) })
}

// testTreeWatch runs `gatewright tree --watch` while the Deployment of the fixture
// becomes available: the tree is printed again, once, with the Deployment ready.
func testTreeWatch(t *testing.T, kubeconfig string, k8s client.Client) {
	defer func(interval time.Duration) { treeWatchInterval = interval }(treeWatchInterval)
	treeWatchInterval = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lockedBuffer{}
	cmd := newRootCommand()
	cmd.SetOut(out)
	cmd.SetArgs([]string{"tree", "--kubeconfig", kubeconfig, "gateway", "web", "-n", "team-a", "--watch"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()

	waitFor(t, func() bool { return strings.Count(out.String(), "NAME") == 1 })
	deployment := &appsv1.Deployment{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "web-proxy"}, deployment); err != nil {
		t.Fatal(err)
	}
	deployment.Status = appsv1.DeploymentStatus{
		ObservedGeneration: deployment.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"},
		},
	}
	if err := k8s.Status().Update(ctx, deployment); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Count(out.String(), "NAME") == 2 })
	time.Sleep(10 * treeWatchInterval) // an unchanged tree is not printed again
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("tree --watch ended with %v", err)
	}
	trees := strings.Split(out.String(), "\n\n")
	if len(trees) != 2 {
		t.Fatalf("want 2 trees, got %d:\n%s", len(trees), out.String())
	}
	if !strings.Contains(trees[0], "Deployment/web-proxy                   False") || !strings.Contains(trees[1], "Deployment/web-proxy                   True") {
		t.Fatalf("want the Deployment False, then True:\n%s", out.String())
	}
}

func waitFor(t *testing.T, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !done(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// createTreeFixture writes the samples' class and blueprint, Gateway team-a/web with its
// two-part Rendering and objects, and HTTPRoute team-b/shop on it with its Rendering and object.
func createTreeFixture(t *testing.T, k8s client.Client) {
	t.Helper()
	ctx := context.Background()
	set, err := offline.Load(filepath.Join("..", "..", "samples", "provider"))
	if err != nil {
		t.Fatal(err)
	}
	class, blueprint := set.GatewayClasses[0], set.Blueprints[0]
	gw := &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"},
		Spec: gatewayv1.GatewaySpec{
			GatewayClassName: gatewayv1.ObjectName(class.Name),
			Listeners:        []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}},
		},
	}
	bare := gw.DeepCopy()
	bare.Name, bare.Spec.GatewayClassName = "bare", "nope"
	unseen := gw.DeepCopy()
	unseen.Name = "unseen"
	gatewayNamespace := gatewayv1.Namespace("team-a")
	route := &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "shop"},
		Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: gatewayv1.CommonRouteSpec{
			ParentRefs: []gatewayv1.ParentReference{{Name: "web", Namespace: &gatewayNamespace}},
		}},
	}
	gatewayLabels := map[string]string{
		gatewrightv1alpha1.LabelManagedBy:        gatewrightv1alpha1.ManagedByValue,
		gatewayv1.GatewayNameLabelKey:            "web",
		gatewrightv1alpha1.LabelGatewayNamespace: "team-a",
	}
	routeLabels := map[string]string{
		gatewrightv1alpha1.LabelHTTPRouteName:      "shop",
		gatewrightv1alpha1.LabelHTTPRouteNamespace: "team-b",
	}
	for k, v := range gatewayLabels {
		routeLabels[k] = v
	}
	gatewayRendering := &gatewrightv1alpha1.Rendering{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gateway.web", Labels: gatewayLabels},
		Owner:      gatewrightv1alpha1.RenderingOwner{Kind: "Gateway", Name: "web", GatewayNamespace: "team-a", GatewayName: "web"},
		Parts:      2,
		// Rendered from revision 2, while a rollout has assigned it revision 3.
		Revision: 2, TargetRevision: 3,
		Objects: []gatewrightv1alpha1.RenderedObject{
			{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "team-a", Name: "web-proxy", Template: "deployment", Hash: "0f3c9a8e21b4d7c6", Ready: true},
			{APIVersion: "v1", Kind: "Service", Namespace: "team-a", Name: "web-proxy", Template: "service", Hash: "a7b2c4e9f1d03568", Ready: true},
		},
	}
	// A second part, as for more than 2,000 objects: the tree shows every part's objects.
	gatewayRenderingPart1 := &gatewrightv1alpha1.Rendering{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "gateway-1.web", Labels: gatewayLabels},
		Owner:      gatewayRendering.Owner,
		Part:       1,
		Parts:      2,
		Objects: []gatewrightv1alpha1.RenderedObject{
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-a", Name: "web-bootstrap", Template: "bootstrap", Hash: "5d1e7b2a9c4f0386"},
		},
	}
	routeRendering := &gatewrightv1alpha1.Rendering{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "httproute.shop." + shortHashOf("team-a/web"), Labels: routeLabels},
		Owner:      gatewrightv1alpha1.RenderingOwner{Kind: "HTTPRoute", Name: "shop", GatewayNamespace: "team-a", GatewayName: "web"},
		Parts:      1,
		Objects: []gatewrightv1alpha1.RenderedObject{
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-b", Name: "shop-routes", Template: "route-config", Hash: "c3e8a1f6b9d24705", Ready: true},
		},
	}
	replicas := int32(1)
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web-proxy"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web-proxy"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web-proxy"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "envoy", Image: "envoyproxy/envoy:v1.36.2"}}},
			},
		},
	}
	service := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web-proxy"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
	routeConfig := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "shop-routes"}}
	// The revision the Rendering says rendered the objects, whose readyWhen judges them.
	revision := &gatewrightv1alpha1.GatewayClassBlueprintRevision{
		ObjectMeta: metav1.ObjectMeta{Name: revisions.Name(blueprint.Name, 2), Labels: revisions.Labels(blueprint.Name)},
		Blueprint:  blueprint.Name, Revision: 2, Spec: *blueprint.Spec.DeepCopy(), Hash: strings.Repeat("0", 64),
	}

	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b"}},
		&blueprint, &class, gw, bare, unseen, route,
		gatewayRendering, gatewayRenderingPart1, routeRendering, deployment, service, routeConfig, revision,
	} {
		obj.SetResourceVersion("")
		if err := k8s.Create(ctx, obj); err != nil {
			t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
		}
	}

	// The conditions the controller would have set.
	blueprint.Status.Conditions = []metav1.Condition{fixtureCondition("Accepted", metav1.ConditionTrue, "Accepted", blueprint.Generation)}
	class.Status.Conditions = []metav1.Condition{fixtureCondition("Accepted", metav1.ConditionTrue, "Accepted", class.Generation)}
	gw.Status.Conditions = []metav1.Condition{
		fixtureCondition("Accepted", metav1.ConditionTrue, "Accepted", gw.Generation),
		fixtureCondition("Programmed", metav1.ConditionFalse, "Pending", gw.Generation),
	}
	bare.Status.Conditions = []metav1.Condition{
		fixtureCondition("Accepted", metav1.ConditionFalse, "InvalidParameters", bare.Generation),
		fixtureCondition("Programmed", metav1.ConditionFalse, "Pending", bare.Generation),
	}
	route.Status.Parents = []gatewayv1.RouteParentStatus{{
		ParentRef:      route.Spec.ParentRefs[0],
		ControllerName: gatewrightv1alpha1.ControllerName,
		Conditions: []metav1.Condition{
			fixtureCondition("Accepted", metav1.ConditionTrue, "Accepted", route.Generation),
			fixtureCondition("ResolvedRefs", metav1.ConditionTrue, "ResolvedRefs", route.Generation),
		},
	}}
	for _, obj := range []client.Object{&blueprint, &class, gw, bare, route} {
		if err := k8s.Status().Update(ctx, obj); err != nil {
			t.Fatalf("updating the status of %T %s: %v", obj, obj.GetName(), err)
		}
	}
}

func fixtureCondition(conditionType string, status metav1.ConditionStatus, reason string, generation int64) metav1.Condition {
	return metav1.Condition{
		Type: conditionType, Status: status, Reason: reason, Message: "set by the test",
		ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(time.Unix(0, 0)),
	}
}

// shortHashOf is how internal/apply names an HTTPRoute's Rendering after its Gateway.
func shortHashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
