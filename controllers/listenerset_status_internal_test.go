package controllers

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatewright/gatewright/internal/listeners"
)

func TestListenerSetStatus(t *testing.T) {
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name = "infra", "web"
	all := gatewayv1.NamespacesFromAll
	gw.Spec.AllowedListeners = &gatewayv1.AllowedListeners{Namespaces: &gatewayv1.ListenerNamespaces{From: &all}}
	if err := yaml.UnmarshalStrict([]byte(`[{name: http, protocol: HTTP, port: 80}]`), &gw.Spec.Listeners); err != nil {
		t.Fatal(err)
	}
	ls := func(name, entries string) *gatewayv1.ListenerSet {
		out := &gatewayv1.ListenerSet{}
		out.Namespace, out.Name, out.Generation = "team-a", name, 3
		if err := yaml.UnmarshalStrict([]byte(entries), &out.Spec.Listeners); err != nil {
			t.Fatal(err)
		}
		return out
	}
	attached := ls("attached", `[{name: extra, protocol: HTTP, port: 8080}]`)
	refused := ls("refused", `[{name: https, protocol: HTTPS, port: 80}]`)
	serves := listeners.Serves{}.WithListenerSets()
	verdicts := listeners.EvaluateSets(serves, gw, nil, []listeners.Set{listeners.SetOf(attached, nil), listeners.SetOf(refused, nil)})
	summary := func(s gatewayv1.ListenerSetStatus) string {
		line := ""
		for _, t := range []gatewayv1.ListenerSetConditionType{gatewayv1.ListenerSetConditionAccepted, gatewayv1.ListenerSetConditionProgrammed} {
			c := meta.FindStatusCondition(s.Conditions, string(t))
			line += fmt.Sprintf("%s=%s/%s(%d) ", t, c.Status, c.Reason, c.ObservedGeneration)
		}
		for _, l := range s.Listeners {
			c := meta.FindStatusCondition(l.Conditions, string(gatewayv1.ListenerConditionProgrammed))
			line += fmt.Sprintf("%s:Programmed=%s/%s", l.Name, c.Status, c.Reason)
		}
		return line
	}
	tests := []struct {
		name                 string
		accepted, programmed bool
		want                 string
	}{
		{"on a programmed Gateway, an attached ListenerSet and its valid listeners are programmed", true, true,
			"Accepted=True/Accepted(3) Programmed=True/Programmed(3) extra:Programmed=True/Programmed"},
		{"on a Gateway not programmed yet, it waits with it", true, false,
			"Accepted=True/Accepted(3) Programmed=False/ParentNotProgrammed(3) extra:Programmed=False/Pending"},
		{"on a Gateway not accepted, it is not accepted either", false, false,
			"Accepted=False/ParentNotAccepted(3) Programmed=False/ParentNotAccepted(3) extra:Programmed=False/Pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summary(listenerSetStatus(attached, verdicts[0], nil, tt.accepted, tt.programmed)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	// A refused ListenerSet's status is the same whatever the Gateway's: a change of the
	// Gateway's conditions rewrites none of those a tenant may pile on it.
	want := listenerSetStatus(refused, verdicts[1], nil, true, true)
	if got := summary(want); got != "Accepted=False/ListenersNotValid(3) Programmed=False/ListenersNotValid(3) https:Programmed=False/ProtocolConflict" {
		t.Errorf("refused: got %s", got)
	}
	refused.Status = want // as the server holds it after the first write
	for _, gateway := range [][2]bool{{true, false}, {false, false}} {
		if got := listenerSetStatus(refused, verdicts[1], nil, gateway[0], gateway[1]); !equality.Semantic.DeepEqual(got, want) {
			t.Errorf("the refused ListenerSet's status changes with the Gateway's (accepted %v, programmed %v): %s", gateway[0], gateway[1], summary(got))
		}
	}
}
