package routes

import (
	"fmt"
	"slices"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestEveryKindRoundTrips(t *testing.T) {
	for _, kind := range Kinds {
		route := New(kind)
		if route == nil || KindOf(route) != kind {
			t.Errorf("New(%s) is a %T, of kind %q", kind, route, KindOf(route))
		}
		if Status(route) == nil {
			t.Errorf("a %s has no status", kind)
		}
		if NewList(kind) == nil {
			t.Errorf("no list of %s", kind)
		}
	}
	if New("Service") != nil || NewList("Service") != nil || IsKind("Service") {
		t.Error("Service taken for a route kind")
	}
}

func TestItemsPointIntoTheList(t *testing.T) {
	list := &gatewayv1.TCPRouteList{Items: []gatewayv1.TCPRoute{{}, {}}}
	list.Items[1].Name = "db"
	items := Items(list)
	if len(items) != 2 || items[1].GetName() != "db" {
		t.Fatalf("Items = %v", items)
	}
	Status(items[0]).Parents = []gatewayv1.RouteParentStatus{{ControllerName: "gatewright.dev/gateway-controller"}}
	if len(list.Items[0].Status.Parents) != 1 {
		t.Error("a status set through Items did not reach the list's route")
	}
}

func TestSharedFields(t *testing.T) {
	port := gatewayv1.PortNumber(5432)
	ref := gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: "db", Port: &port}}
	parent := gatewayv1.ParentReference{Name: "edge"}
	tests := []struct {
		route     Route
		hostnames int
	}{
		{&gatewayv1.HTTPRoute{Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Hostnames:       []gatewayv1.Hostname{"a.example"},
			Rules:           []gatewayv1.HTTPRouteRule{{}, {BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: ref}}}},
		}}, 1},
		{&gatewayv1.GRPCRoute{Spec: gatewayv1.GRPCRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Hostnames:       []gatewayv1.Hostname{"a.example"},
			Rules:           []gatewayv1.GRPCRouteRule{{}, {BackendRefs: []gatewayv1.GRPCBackendRef{{BackendRef: ref}}}},
		}}, 1},
		{&gatewayv1.TLSRoute{Spec: gatewayv1.TLSRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Hostnames:       []gatewayv1.Hostname{"a.example"},
			Rules:           []gatewayv1.TLSRouteRule{{}, {BackendRefs: []gatewayv1.BackendRef{ref}}},
		}}, 1},
		{&gatewayv1.TCPRoute{Spec: gatewayv1.TCPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Rules:           []gatewayv1.TCPRouteRule{{}, {BackendRefs: []gatewayv1.BackendRef{ref}}},
		}}, 0},
		{&gatewayv1.UDPRoute{Spec: gatewayv1.UDPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Rules:           []gatewayv1.UDPRouteRule{{}, {BackendRefs: []gatewayv1.BackendRef{ref}}},
		}}, 0},
	}
	for _, tt := range tests {
		kind := KindOf(tt.route)
		if refs := ParentRefs(tt.route); len(refs) != 1 || refs[0].Name != "edge" {
			t.Errorf("%s: parentRefs %v", kind, refs)
		}
		if got := len(Hostnames(tt.route)); got != tt.hostnames || HasHostnames(kind) != (tt.hostnames > 0) {
			t.Errorf("%s: %d hostnames, HasHostnames %v", kind, got, HasHostnames(kind))
		}
		rules := BackendRefs(tt.route)
		if len(rules) != 2 || len(rules[0]) != 0 || len(rules[1]) != 1 || rules[1][0].Name != "db" || *rules[1][0].Port != port {
			t.Errorf("%s: backendRefs by rule %v", kind, rules)
		}
		var yielded []string
		for rule, ref := range AllBackendRefs(tt.route) {
			yielded = append(yielded, fmt.Sprintf("%d %s %d", rule, ref.Name, *ref.Port))
		}
		if !slices.Equal(yielded, []string{"1 db 5432"}) {
			t.Errorf("%s: AllBackendRefs yields %q", kind, yielded)
		}
	}
}
