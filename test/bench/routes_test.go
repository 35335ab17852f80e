package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/offline"
)

// The floor holds the same routes as the blueprint's routes ConfigMap, each at its path:
// the bench waits for the same thing from both.
func TestFloorHoldsTheRoutesTheBlueprintRenders(t *testing.T) {
	const namespaces, routes = 3, 12
	gw := gateway(routesGatewayIndex, namespaces)
	allowRoutesFromAll(gw)
	streams := []string{routesBlueprint(blueprintYAML(rolloutWaves, false)), classConfigYAML(false)}
	for i := range namespaces {
		streams = append(streams, tenant(namespaceName(i), false), backendService(namespaceName(i)))
	}
	var created []*gatewayv1.HTTPRoute
	for i := range routes {
		route := httpRoute(i, namespaces)
		route.CreationTimestamp = metav1.NewTime(time.Date(2026, 12, 2, 0, 0, i, 0, time.UTC))
		created = append(created, route)
		streams = append(streams, asYAML(t, "HTTPRoute", route))
	}
	set := &offline.Set{}
	for _, stream := range append(streams, asYAML(t, "Gateway", gw)) {
		if err := set.Add([]byte(stream)); err != nil {
			t.Fatal(err)
		}
	}
	rendered, err := set.Render(controllerNamespace, gw.Namespace+"/"+gw.Name)
	if err != nil {
		t.Fatal(err)
	}
	var fromBlueprint map[string]string
	for _, r := range rendered {
		for _, obj := range r.Objects {
			if r.Route == "" && obj.GetLabels()[gatewrightv1alpha1.LabelTemplate] == routesTemplate {
				data := map[string]string{}
				for k, v := range obj.Object["data"].(map[string]any) {
					data[k] = v.(string)
				}
				fromBlueprint = heldRoutes(data)
			}
		}
	}
	if len(fromBlueprint) != routes {
		t.Fatalf("the blueprint's routes ConfigMap holds %d routes, want %d: %v", len(fromBlueprint), routes, fromBlueprint)
	}
	fromFloor := heldRoutes(map[string]string{routesKey: routeLines(created)})
	if diff := cmp.Diff(fromBlueprint, fromFloor); diff != "" {
		t.Errorf("the routes held (-blueprint +floor):\n%s", diff)
	}
	if got, want := fromFloor["tenant-1/route-4"], "/tenant-1/route-4"; got != want {
		t.Errorf("route-4 is held at %q, want %q", got, want)
	}
}

func asYAML(t *testing.T, kind string, obj any) string {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\n" + string(data)
}

func TestHeldRoutesReadsOneRoutePerLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		data map[string]string
		want map[string]string
	}{
		{"an empty ConfigMap holds no route", map[string]string{routesKey: ""}, map[string]string{}},
		{"a ConfigMap without the key holds no route", map[string]string{"count": "0"}, map[string]string{}},
		{"each line is a route and its path, indented or not", map[string]string{routesKey: "a/r /a\n  b/s /b/s\n"},
			map[string]string{"a/r": "/a", "b/s": "/b/s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, heldRoutes(tc.data)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderPaceLetsOneRenderOfAGatewayStartPerInterval(t *testing.T) {
	key := types.NamespacedName{Namespace: "tenant-0", Name: "gw-0"}
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	p := &renderPace{every: time.Second, at: map[types.NamespacedName]time.Time{}}
	for _, step := range []struct {
		name  string
		after time.Duration
		wait  time.Duration
	}{
		{"the first event renders at once", 0, 0},
		{"one within the interval waits for its end", 300 * time.Millisecond, 700 * time.Millisecond},
		{"another before that render joins it", 900 * time.Millisecond, 100 * time.Millisecond},
		{"one after that render's start waits an interval from it", 1100 * time.Millisecond, 900 * time.Millisecond},
		{"one an interval after the last render renders at once", 5 * time.Second, 0},
	} {
		if wait := p.delay(key, t0.Add(step.after)); wait != step.wait {
			t.Errorf("%s: waits %s, want %s", step.name, wait, step.wait)
		}
	}
}

func TestRouteWatchWaitsForEveryRouteAcceptedAndHeldThenForTheEdit(t *testing.T) {
	gw := gateway(routesGatewayIndex, 2)
	w := &routeWatch{gateway: types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}, want: 2, all: make(chan struct{}),
		accepted: map[string]int64{}, held: map[string]string{}}
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	w.recordRoute("tenant-0/route-0", 1, now)
	w.recordRoute("tenant-1/route-1", 1, now.Add(time.Second))
	if closed(w.all) {
		t.Fatal("done with every route Accepted and none held")
	}
	w.recordHeld(map[string]string{"tenant-0/route-0": "/a", "tenant-1/route-1": "/b"}, now.Add(2*time.Second))
	if !closed(w.all) {
		t.Fatal("not done with every route Accepted and held")
	}
	if accepted, held, all := w.times(); !accepted.Equal(now.Add(time.Second)) || !held.Equal(now.Add(2*time.Second)) || !all.Equal(held) {
		t.Errorf("times %s, %s, %s", accepted, held, all)
	}
	edited := w.expect("tenant-0/route-0", 2, "/a/edited")
	w.recordHeld(map[string]string{"tenant-0/route-0": "/a/edited", "tenant-1/route-1": "/b"}, now.Add(3*time.Second))
	if closed(edited) {
		t.Fatal("the edit is done while its route is Accepted only at its old generation")
	}
	w.recordRoute("tenant-0/route-0", 2, now.Add(4*time.Second))
	if !closed(edited) || !w.editedAt().Equal(now.Add(4*time.Second)) {
		t.Errorf("the edit is not done at the Accepted of its new generation")
	}
}

func TestAcceptedGenerationIsOursOnTheGatewayAtTheRoutesGeneration(t *testing.T) {
	gw := gateway(routesGatewayIndex, 2)
	key := types.NamespacedName{Namespace: gw.Namespace, Name: gw.Name}
	route := func(controller gatewayv1.GatewayController, status metav1.ConditionStatus, observed int64) *gatewayv1.HTTPRoute {
		r := httpRoute(1, 2)
		r.Generation = 2
		r.Status.Parents = []gatewayv1.RouteParentStatus{{ParentRef: r.Spec.ParentRefs[0], ControllerName: controller,
			Conditions: []metav1.Condition{{Type: string(gatewayv1.RouteConditionAccepted), Status: status, ObservedGeneration: observed}}}}
		return r
	}
	for _, tc := range []struct {
		name  string
		route *gatewayv1.HTTPRoute
		want  int64
	}{
		{"Accepted by us at its generation", route(gatewrightv1alpha1.ControllerName, metav1.ConditionTrue, 2), 2},
		{"Accepted at an older generation is not yet", route(gatewrightv1alpha1.ControllerName, metav1.ConditionTrue, 1), 0},
		{"refused is not Accepted", route(gatewrightv1alpha1.ControllerName, metav1.ConditionFalse, 2), 0},
		{"another controller's word does not count", route("example.com/other", metav1.ConditionTrue, 2), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := acceptedGeneration(tc.route, key); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRoutesReportGivesFiguresPerRouteAndBothWindows(t *testing.T) {
	contender := func(name string, writes int, done float64) *result {
		return &result{Controller: name, Routes: &routesResult{Routes: 1000, DoneSeconds: done, Settled: true,
			Window: tally{Writes: writes, ByKind: map[string]int{"patch httproutes/status": 1000}},
			Edit: routeEditResult{Settled: true, AppliedSeconds: done / 100, AppliedEachSeconds: []float64{done / 50, done / 100, done / 200},
				Window: tally{Writes: 3 * writes / 1000, ByKind: map[string]int{"patch configmaps": 3}}}}}
	}
	rep := &report{Gateways: 1, Routes: 1000, Namespaces: 10, Parallel: 8, Results: []*result{contender("floor", 1010, 10), contender("gatewright", 2030, 12)}}
	var out strings.Builder
	rep.print(&out)
	squeezed := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"routes: every route Accepted and held after (s) 10.0 12.0 1.20×",
		"routes: writes / route 1.01 2.03 2.01×",
		"1000 HTTPRoutes over 10 namespaces on one Gateway",
		"patch httproutes/status 1000 1000",
		"edit: one route's path changed 3 times",
		"edit: the route applied after, median of the edits (s) 0.10 0.12 1.20×",
		"the slowest edit (s) 0.20 0.24",
		"edit: writes / edit 1.0 2.0 2.00×",
	} {
		if !strings.Contains(squeezed, want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if got := headlineSeconds(rep.Results[1]) / headlineSeconds(rep.Results[0]); got != 1.2 {
		t.Errorf("the headline ratio is %.2f, want the routes' 1.20", got)
	}
}
