package controllers

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/translate"
)

// programmedGateway is a Gateway that was programmed, with an address.
func programmedGateway() *gatewayv1.Gateway {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Generation: 2}}
	gw.Spec.Listeners = []gatewayv1.Listener{{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80}}
	gw.Status.Addresses = []gatewayv1.GatewayStatusAddress{{Value: "192.0.2.1"}}
	s := newGatewayStatus(gw, listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, nil))
	s.accepted()
	s.attach(map[gatewayv1.SectionName]int32{"http": 3})
	s.setListeners(true, gatewayv1.ListenerReasonProgrammed)
	s.set(gatewayv1.GatewayConditionProgrammed, true, gatewayv1.GatewayReasonProgrammed, "")
	gw.Status = s.status
	return gw
}

func condition(conditions []metav1.Condition, t string) string {
	c := meta.FindStatusCondition(conditions, t)
	if c == nil {
		return "<none>"
	}
	return string(c.Status) + "/" + c.Reason + ": " + c.Message
}

func TestNotAccepted(t *testing.T) {
	s := newGatewayStatus(programmedGateway(), listeners.Evaluate(listeners.Serves{}, programmedGateway().Spec.Listeners, nil))
	s.notAccepted(gatewayv1.GatewayReasonInvalidParameters, "GatewayClass web-class is being deleted")

	if got := condition(s.status.Conditions, "Accepted"); got != "False/InvalidParameters: GatewayClass web-class is being deleted" {
		t.Errorf("Accepted: %s", got)
	}
	if got := condition(s.status.Conditions, "Programmed"); got != "False/Invalid: the Gateway is not accepted: GatewayClass web-class is being deleted" {
		t.Errorf("Programmed: %s", got)
	}
	if len(s.status.Listeners) != 1 || s.status.Listeners[0].AttachedRoutes != 0 {
		t.Fatalf("listeners: %+v", s.status.Listeners)
	}
	if got := condition(s.status.Listeners[0].Conditions, "Programmed"); got != "False/Invalid: " {
		t.Errorf("listener Programmed: %s", got)
	}
	if s.status.Addresses != nil {
		t.Errorf("addresses: %v", s.status.Addresses)
	}
}

func TestProgrammedAddresses(t *testing.T) {
	rendered := []gatewayv1.GatewayStatusAddress{{Value: "lb.example.com"}}
	tests := []struct {
		name              string
		out               render.Output
		notReady          []string
		hasStatusTemplate bool
		want              []gatewayv1.GatewayStatusAddress
		wantProgrammed    string
	}{
		{name: "the status template rendered", out: render.Output{StatusRendered: true, Addresses: rendered}, hasStatusTemplate: true,
			want: rendered, wantProgrammed: "True/Programmed: 0 object(s) applied and ready"},
		{name: "waiting", out: render.Output{Waiting: []render.Waiting{{Template: "b", For: "a"}}}, hasStatusTemplate: true,
			want: []gatewayv1.GatewayStatusAddress{{Value: "192.0.2.1"}}, wantProgrammed: "False/Pending: waiting: template b is waiting for a"},
		{name: "an object not ready", notReady: []string{"Service ns/web"}, hasStatusTemplate: true,
			want: []gatewayv1.GatewayStatusAddress{{Value: "192.0.2.1"}}, wantProgrammed: "False/Pending: waiting: Service ns/web"},
		{name: "no status template", wantProgrammed: "True/Programmed: 0 object(s) applied and ready"},
		{name: "no status template, waiting", notReady: []string{"Service ns/web"}, wantProgrammed: "False/Pending: waiting: Service ns/web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newGatewayStatus(programmedGateway(), listeners.Evaluate(listeners.Serves{}, programmedGateway().Spec.Listeners, nil))
			s.programmed(&translate.Result{Output: &tt.out}, tt.notReady, tt.hasStatusTemplate)
			if !slices.Equal(s.status.Addresses, tt.want) {
				t.Errorf("addresses: %v, want %v", s.status.Addresses, tt.want)
			}
			if got := condition(s.status.Conditions, "Programmed"); got != tt.wantProgrammed {
				t.Errorf("Programmed: %s", got)
			}
		})
	}
}
