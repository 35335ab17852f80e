package fairness

import (
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/event"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func gatewayOwner(name string) Owner {
	return Owner{Kind: "Gateway", Name: name, GatewayNamespace: "infra", GatewayName: name}
}

func routeOwner(name, gateway string) Owner {
	return Owner{Kind: "HTTPRoute", Name: name, GatewayNamespace: "infra", GatewayName: gateway}
}

// recording is part 0 of owner's record in namespace, holding bytes.
func recording(namespace string, owner Owner, bytes int64) *gatewrightv1alpha1.Rendering {
	r := &gatewrightv1alpha1.Rendering{RenderedBytes: bytes}
	r.Namespace = namespace
	r.Owner = gatewrightv1alpha1.RenderingOwner{Kind: owner.Kind, Name: owner.Name, GatewayNamespace: owner.GatewayNamespace, GatewayName: owner.GatewayName}
	return r
}

func TestNamespaceBytesCountsEveryOwnerOfTheNamespace(t *testing.T) {
	n := NewNamespaceBytes(1000)
	n.recorded(recording("infra", gatewayOwner("web"), 600), false)
	n.recorded(recording("team-a", routeOwner("shop", "web"), 300), false)

	// The route's bytes are its own namespace's, not its Gateway's.
	if err := n.Admit("infra", gatewayOwner("api"), 0, 400); err != nil {
		t.Errorf("infra holds 600 bytes and a route of team-a on its Gateway 300: 400 more fit, got %v", err)
	}
	if err := n.Admit("team-a", routeOwner("cart", "web"), 0, 701); err == nil {
		t.Error("team-a holds 300 bytes: a route of 701 more passes the bound of 1000, but was admitted")
	} else if !strings.Contains(err.Error(), "with the other Gateways and routes of namespace team-a, 1001 bytes") {
		t.Errorf("the refusal does not name the namespace's sum: %v", err)
	}
	// The same route on two Gateways is two owners.
	if err := n.Admit("team-a", routeOwner("shop", "api"), 0, 701); err == nil {
		t.Error("the route on a second Gateway was admitted as if it were its record on the first")
	}
	if err := n.Admit("team-a", routeOwner("shop", "web"), 300, 1000); err != nil {
		t.Errorf("the route alone in team-a may grow to the bound: %v", err)
	}
}

func TestNamespaceBytesNeverRefusesAnOwnerThatDoesNotGrow(t *testing.T) {
	n := NewNamespaceBytes(1000)
	n.recorded(recording("team-a", routeOwner("shop", "web"), 900), false)
	n.recorded(recording("team-a", routeOwner("cart", "web"), 900), false) // held before the bound was lowered
	if err := n.Admit("team-a", routeOwner("cart", "web"), 900, 900); err != nil {
		t.Errorf("an owner over the bound that does not grow was refused: %v", err)
	}
	if err := n.Admit("team-a", routeOwner("cart", "web"), 900, 901); err == nil {
		t.Error("an owner over the bound grew and was admitted")
	}
}

func TestNamespaceBytesRetriesRefusedOwnersOfTheirKindWhenRoomIsMade(t *testing.T) {
	n := NewNamespaceBytes(1000)
	gateways, routes := make(chan string, 4), make(chan string, 4)
	for kind, names := range map[string]chan string{"Gateway": gateways, "HTTPRoute": routes} {
		ch := make(chan event.GenericEvent, 4) // what Source makes, without a manager to read it
		n.retries[kind] = ch
		go func() {
			for e := range ch {
				names <- e.Object.GetNamespace() + "/" + e.Object.GetName()
			}
		}()
	}
	n.recorded(recording("team-a", routeOwner("shop", "web"), 900), false)
	if n.Admit("team-a", routeOwner("cart", "web"), 0, 200) == nil || n.Admit("team-a", gatewayOwner("edge"), 0, 200) == nil {
		t.Fatal("owners past the bound were admitted")
	}
	n.recorded(recording("team-a", routeOwner("shop", "web"), 100), false)
	if r := <-routes; r != "team-a/cart" {
		t.Errorf("the refused route was retried as %q", r)
	}
	if g := <-gateways; g != "team-a/edge" {
		t.Errorf("the refused Gateway was retried as %q", g)
	}
}
