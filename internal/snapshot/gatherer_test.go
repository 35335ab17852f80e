package snapshot

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/translate"
)

// gathered is what a test reads of a snapshot.
type gathered struct {
	routes        []string // namespace/name
	listeners     int
	template      string // of the blueprint's first Gateway template; "" without values
	revision      int64
	greeting      string // the riding config's, as the snapshot holds it
	gatewayConfig []string
}

func gatheredOf(snap *translate.Gateway) gathered {
	var got gathered
	for _, r := range snap.Routes {
		got.routes = append(got.routes, r.Namespace+"/"+r.Name)
	}
	got.listeners, got.revision = len(snap.Listeners), snap.Revision
	if bp := snap.Values.Blueprint; bp != nil {
		got.template = bp.Spec.GatewayTemplate.ResourceTemplates[0].Name
	}
	for _, gcc := range snap.Values.GatewayClassConfigs {
		got.greeting = string(gcc.Spec.Default.Raw)
	}
	for _, c := range snap.Values.GatewayConfigs {
		got.gatewayConfig = append(got.gatewayConfig, c.Namespace)
	}
	return got
}

func TestGatewayGathersWhatItsOptionsSay(t *testing.T) {
	all := []string{"team-a/shop", "team-b/cart"}
	cases := []struct {
		name     string
		gatherer Gatherer
		gateway  string
		opts     []Option
		want     gathered
	}{
		{"everything, at the current revision with the configs it holds", Gatherer{}, "web", nil,
			gathered{routes: all, listeners: 2, template: "one", revision: 1, greeting: `{"greeting":"held-one"}`, gatewayConfig: []string{"team-a"}}},
		{"the revision a rollout assigned in the Gateway's record", Gatherer{}, "assigned", nil,
			gathered{routes: nil, listeners: 2, template: "two", revision: 2, greeting: `{"greeting":"held-two"}`, gatewayConfig: []string{"team-a"}}},
		{"the revision the caller's record assigned", Gatherer{}, "web", []Option{Assigned(func(string) int64 { return 2 })},
			gathered{routes: all, listeners: 2, template: "two", revision: 2, greeting: `{"greeting":"held-two"}`, gatewayConfig: []string{"team-a"}}},
		{"an assignment of another blueprint counts for nothing", Gatherer{}, "web", []Option{Assigned(func(bp string) int64 { return map[string]int64{"other": 2}[bp] })},
			gathered{routes: all, listeners: 2, template: "one", revision: 1, greeting: `{"greeting":"held-one"}`, gatewayConfig: []string{"team-a"}}},
		{"a proposed spec is run as it is, with the live configs", Gatherer{Proposed: map[string]bool{"envoy": true}}, "web", nil,
			gathered{routes: all, listeners: 2, template: "live", revision: 0, greeting: `{"greeting":"live"}`, gatewayConfig: []string{"team-a"}}},
		{"the routes among the caller's candidates only", Gatherer{}, "web", []Option{Among([]*gatewayv1.HTTPRoute{route("team-a", "shop", "web", "shop"), route("team-a", "elsewhere", "other", "shop")})},
			gathered{routes: []string{"team-a/shop"}, listeners: 2, template: "one", revision: 1, greeting: `{"greeting":"held-one"}`, gatewayConfig: []string{"team-a"}}},
		{"the listeners as the caller judged them", Gatherer{}, "web", []Option{Judged(nil)},
			gathered{routes: all, listeners: 0, template: "one", revision: 1, greeting: `{"greeting":"held-one"}`, gatewayConfig: []string{"team-a"}}},
		{"the route table only", Gatherer{}, "web", []Option{RouteTableOnly()},
			gathered{routes: all, listeners: 2}},
		{"the values only", Gatherer{}, "web", []Option{ValuesOnly()},
			gathered{template: "one", revision: 1, greeting: `{"greeting":"held-one"}`, gatewayConfig: []string{"team-a"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := reader(t, nil)
			g := c.gatherer
			g.Reader, g.ControllerNamespace, g.SecretCheck = r, system, secretsOK
			snap, err := g.Gateway(t.Context(), gateway(c.gateway), internet(t, r), c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := gatheredOf(snap); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestGatewayResolvesBackendRefsAndListeners(t *testing.T) {
	r := reader(t, nil)
	g := &Gatherer{Reader: r, ControllerNamespace: system, SecretCheck: secretsOK}
	snap, err := g.Gateway(t.Context(), gateway("web"), internet(t, r))
	if err != nil {
		t.Fatal(err)
	}
	resolved := map[string]bool{}
	for _, in := range snap.RouteInputs {
		resolved[in.Route.GetNamespace()+"/"+in.Route.GetName()] = in.BackendRefs[0].Resolved()
	}
	if want := map[string]bool{"team-a/shop": true, "team-b/cart": false}; !reflect.DeepEqual(resolved, want) {
		t.Errorf("backendRefs resolved: %v, want %v (the Service of team-b/cart does not exist)", resolved, want)
	}
	if https := snap.Listeners[1]; https.Name != "https" || https.ResolvedRefs != gatewayv1.ListenerReasonInvalidCertificateRef {
		t.Errorf("listener %s: ResolvedRefs %s; want https, its certificate refused", https.Name, https.ResolvedRefs)
	}
}

func TestARevisionNotReadIsAnErrorUnlessTheCallerComputesWithTheLiveSpec(t *testing.T) {
	r := reader(t, nil)
	three := Assigned(func(string) int64 { return 3 })
	_, err := (&Gatherer{Reader: r, ControllerNamespace: system}).Gateway(t.Context(), gateway("web"), internet(t, r), ValuesOnly(), three)
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "not read yet") || translate.Classify(err) != translate.Conflict {
		t.Errorf("got %v, want the error that revision 3 is not read yet, retried as a stale read", err)
	}
	snap, err := (&Gatherer{Reader: r, ControllerNamespace: system, LiveWithoutRevisions: true}).Gateway(t.Context(), gateway("web"), internet(t, r), ValuesOnly(), three)
	if err != nil {
		t.Fatal(err)
	}
	if got := gatheredOf(snap); got.template != "live" || got.revision != 0 {
		t.Errorf("got %+v, want the live spec", got)
	}
}

func TestRouteGathersTheValuesOfTheRouteOnItsGateway(t *testing.T) {
	r := reader(t, nil)
	g := &Gatherer{Reader: r, ControllerNamespace: system}
	snap, err := g.Route(t.Context(), route("team-b", "cart", "web", "cart"), gateway("web"), internet(t, r))
	if err != nil {
		t.Fatal(err)
	}
	want := gathered{template: "one", revision: 1, greeting: `{"greeting":"held-one"}`, gatewayConfig: []string{"team-a", "team-b"}}
	if got := gatheredOf(snap); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v (the policies of the route's namespace too)", got, want)
	}
}

func TestRoutesTranslateOnTheGatewaysSnapshot(t *testing.T) {
	r := reader(t, nil)
	g := &Gatherer{Reader: r, ControllerNamespace: system}
	snap, err := g.Gateway(t.Context(), gateway("web"), internet(t, r))
	if err != nil {
		t.Fatal(err)
	}
	routes, err := g.Routes(t.Context(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) != 2 || routes[1].Route.GetName() != "cart" || len(routes[1].BackendRefs) != 1 {
		t.Errorf("routes %+v, want shop and cart with their backendRefs", routes)
	}
	if got := gatheredOf(snap).gatewayConfig; !slices.Equal(got, []string{"team-a", "team-b"}) {
		t.Errorf("the GatewayConfigs of namespaces %v, want those of the Gateway's and the routes' namespaces", got)
	}
}

func TestACallersRightsHaveStandInsOrNameWhatWasRead(t *testing.T) {
	secretsAndNamespaces := func(obj any, _ string) error {
		switch obj.(type) {
		case *corev1.Secret, *corev1.Namespace:
			return forbidden
		}
		return nil
	}
	r := reader(t, secretsAndNamespaces)
	rights := &Rights{}
	g := &Gatherer{Reader: r, Rights: rights, AsRecorded: true}
	snap, err := g.Gateway(t.Context(), gateway("web"), internet(t, r), RouteTableOnly())
	if err != nil {
		t.Fatal(err)
	}
	if got := gatheredOf(snap); len(got.routes) != 2 || !snap.CutoffRecorded {
		t.Errorf("got %+v, CutoffRecorded %v: want both routes, with the Namespaces' stand-ins, and the recorded cutoff", got, snap.CutoffRecorded)
	}
	if want := []string{"may not read Secret team-a/cert: the listeners that use it are judged by Gateway team-a/web's status"}; !slices.Equal(rights.Notes, want) {
		t.Errorf("notes %q, want %q", rights.Notes, want)
	}

	// Without a caller's rights, a refused read is the reader's error as it came.
	if _, err := (&Gatherer{Reader: r}).Gateway(t.Context(), gateway("web"), internet(t, r), RouteTableOnly()); !apierrors.IsForbidden(err) || strings.Contains(err.Error(), "Gateway team-a/web") {
		t.Errorf("got %v, want the Forbidden error as it came", err)
	}
	services := reader(t, func(obj any, _ string) error {
		if _, ok := obj.(*metav1.PartialObjectMetadata); ok {
			return forbidden
		}
		return nil
	})
	_, err = (&Gatherer{Reader: services, Rights: &Rights{}}).Gateway(t.Context(), gateway("web"), internet(t, services), RouteTableOnly())
	if want := "Gateway team-a/web: reading Service team-a/shop (a backendRef): "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want an error that starts %q", err, want)
	}
}

func TestPolicyComputesEachContextAtTheRevisionItsGatewayRuns(t *testing.T) {
	r := reader(t, nil)
	g := &Gatherer{Reader: r, ControllerNamespace: system}
	reached, err := g.Policy(t.Context(), system, classTarget("internet")[0], &render.Cache{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range reached {
		if c.Err != nil {
			t.Errorf("%s: %v", c, c.Err)
			continue
		}
		got = append(got, c.String()+" "+c.Values.Values.Values["greeting"].(string))
	}
	want := []string{
		"Gateway team-a/assigned held-two",
		"Gateway team-a/web held-one",
		"HTTPRoute team-a/shop on Gateway team-a/web held-one",
		"HTTPRoute team-b/cart on Gateway team-a/web held-one",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}

	// A revision the cache has not read yet leaves no verdict standing.
	behind := reader(t, func(obj any, name string) error {
		if _, ok := obj.(*gatewrightv1alpha1.GatewayClassBlueprintRevision); ok && name == revisions.Name("envoy", 2) {
			return notFound
		}
		return nil
	})
	g = &Gatherer{Reader: behind, ControllerNamespace: system}
	if _, err := g.Policy(t.Context(), system, classTarget("internet")[0], &render.Cache{}); !apierrors.IsNotFound(err) {
		t.Errorf("got %v, want the error that revision 2 is not read yet", err)
	}
}

func TestRunningBlueprintIsTheCurrentRevision(t *testing.T) {
	r := reader(t, nil)
	bp, err := (&Gatherer{Reader: r}).RunningBlueprint(t.Context(), internet(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if bp.Name != "envoy" || bp.Spec.GatewayTemplate.ResourceTemplates[0].Name != "one" || bp.Generation != 1 {
		t.Errorf("got %s template %s generation %d, want envoy as revision 1", bp.Name, bp.Spec.GatewayTemplate.ResourceTemplates[0].Name, bp.Generation)
	}
	var invalid *translate.InvalidParametersError
	other := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
	if _, err := (&Gatherer{Reader: r}).RunningBlueprint(t.Context(), other); !errors.As(err, &invalid) {
		t.Errorf("a class without a blueprint: got %v, want an InvalidParametersError", err)
	}
}
