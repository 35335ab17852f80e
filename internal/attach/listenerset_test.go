package attach

import (
	"slices"
	"strings"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/listeners"
)

func TestAttachToListenerSet(t *testing.T) {
	var gw gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: http, protocol: HTTP, port: 80, hostname: gateway.example.com}`), &gw); err != nil {
		t.Fatal(err)
	}
	var ls gatewayv1.ListenerSet
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: tenant, namespace: team-a}
spec:
  parentRef: {name: web, namespace: infra}
  listeners:
  - {name: same, protocol: HTTP, port: 80, hostname: a.example.com}
  - {name: all, protocol: HTTP, port: 8080, allowedRoutes: {namespaces: {from: All}}}
  - {name: http, protocol: HTTP, port: 80, hostname: gateway.example.com}`), &ls); err != nil {
		t.Fatal(err)
	}
	serves := listeners.Serves{}.WithListenerSets()
	verdicts := listeners.EvaluateSets(serves, &gw, nil, []listeners.Set{listeners.SetOf(&ls, nil)})
	tests := []struct {
		name    string
		route   string
		verdict func(listeners.SetVerdict) listeners.SetVerdict
		want    []gatewayv1.SectionName
		reason  gatewayv1.RouteConditionReason
		message string
	}{
		{"a route of the ListenerSet's namespace attaches to its listeners that take it; Same is the ListenerSet's namespace",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{kind: ListenerSet, name: tenant}]}}`, nil, []gatewayv1.SectionName{"same", "all"}, "", ""},
		{"a route of the Gateway's namespace is not of the ListenerSet's",
			`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: tenant, namespace: team-a}]}}`, nil, []gatewayv1.SectionName{"all"}, "", ""},
		{"sectionName names a listener of the ListenerSet",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{kind: ListenerSet, name: tenant, sectionName: same}]}}`, nil, []gatewayv1.SectionName{"same"}, "", ""},
		{"a listener the Gateway keeps for its own takes no route of the ListenerSet",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{kind: ListenerSet, name: tenant, sectionName: http}]}}`, nil, nil,
			gatewayv1.RouteReasonNotAllowedByListeners, "listener http is not accepted"},
		{"a sectionName the ListenerSet does not list matches no parent",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{kind: ListenerSet, name: tenant, sectionName: nope}]}}`, nil, nil,
			gatewayv1.RouteReasonNoMatchingParent, "ListenerSet team-a/tenant has no listener named nope"},
		{"a parentRef to the Gateway names no ListenerSet",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{name: tenant}]}}`, nil, nil,
			gatewayv1.RouteReasonNoMatchingParent, "does not name ListenerSet team-a/tenant"},
		{"a ListenerSet not attached to its Gateway takes no route",
			`{metadata: {name: r, namespace: team-a}, spec: {parentRefs: [{kind: ListenerSet, name: tenant}]}}`,
			func(v listeners.SetVerdict) listeners.SetVerdict { v.Accepted = false; return v }, nil,
			gatewayv1.RouteReasonNotAllowedByListeners, "is not attached to its Gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var route gatewayv1.HTTPRoute
			if err := yaml.UnmarshalStrict([]byte(tt.route), &route); err != nil {
				t.Fatal(err)
			}
			verdict := verdicts[0]
			if tt.verdict != nil {
				verdict = tt.verdict(verdict)
			}
			got := AttachToListenerSet(&ls, verdict, serves, RouteOf(&route), route.Spec.ParentRefs[0], nil)
			if !slices.Equal(got.Listeners, tt.want) || got.Reason != tt.reason || !strings.Contains(got.Message, tt.message) {
				t.Errorf("got %v %s %q, want %v %s %q", got.Listeners, got.Reason, got.Message, tt.want, tt.reason, tt.message)
			}
		})
	}
}

// TestGatewayParentRefDoesNotReachListenerSets: a parentRef naming the Gateway, with the
// name of a ListenerSet's listener as its sectionName, matches none of the Gateway's.
func TestGatewayParentRefDoesNotReachListenerSets(t *testing.T) {
	var gw gatewayv1.Gateway
	if err := yaml.UnmarshalStrict([]byte(`
metadata: {name: web, namespace: infra}
spec:
  gatewayClassName: internet
  allowedListeners: {namespaces: {from: All}}
  listeners: [{name: http, protocol: HTTP, port: 80}]`), &gw); err != nil {
		t.Fatal(err)
	}
	var route gatewayv1.HTTPRoute
	if err := yaml.UnmarshalStrict([]byte(`{metadata: {name: r, namespace: infra}, spec: {parentRefs: [{name: web, sectionName: from-listenerset}]}}`), &route); err != nil {
		t.Fatal(err)
	}
	got := Attach(&gw, listeners.Serves{}.WithListenerSets(), RouteOf(&route), route.Spec.ParentRefs[0], nil)
	if got.Attached() || got.Reason != gatewayv1.RouteReasonNoMatchingParent {
		t.Errorf("got %v %s %q, want NoMatchingParent", got.Listeners, got.Reason, got.Message)
	}
}
