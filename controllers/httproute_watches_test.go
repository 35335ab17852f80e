package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestGatewayChangedForRoutes: routes are rendered again for what their templates see
// of the Gateway, and not for the status writes that change nothing of it.
func TestGatewayChangedForRoutes(t *testing.T) {
	listener := func(resolvedRefs metav1.ConditionStatus, reason, message string, programmed metav1.ConditionStatus, routes int32) gatewayv1.ListenerStatus {
		return gatewayv1.ListenerStatus{Name: "https", AttachedRoutes: routes, Conditions: []metav1.Condition{
			{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"},
			{Type: "ResolvedRefs", Status: resolvedRefs, Reason: reason, Message: message},
			{Type: "Programmed", Status: programmed, Reason: "Programmed"},
		}}
	}
	base := func() *gatewayv1.Gateway {
		gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a", Generation: 1}}
		gw.Status.Listeners = []gatewayv1.ListenerStatus{listener(metav1.ConditionFalse, "InvalidCertificateRef", "web-tls does not exist", metav1.ConditionFalse, 0)}
		return gw
	}
	for _, tc := range []struct {
		name   string
		change func(*gatewayv1.Gateway)
		want   bool
	}{
		{"a new generation", func(gw *gatewayv1.Gateway) { gw.Generation = 2 }, true},
		{"an address published", func(gw *gatewayv1.Gateway) {
			gw.Status.Addresses = []gatewayv1.GatewayStatusAddress{{Value: "192.0.2.10"}}
		}, true},
		{"a certificate that now resolves", func(gw *gatewayv1.Gateway) {
			gw.Status.Listeners[0] = listener(metav1.ConditionTrue, "ResolvedRefs", "", metav1.ConditionFalse, 0)
		}, true},
		{"another reason to refuse the certificate", func(gw *gatewayv1.Gateway) {
			gw.Status.Listeners[0] = listener(metav1.ConditionFalse, "InvalidCertificateRef", "web-tls has no tls.key", metav1.ConditionFalse, 0)
		}, true},
		{"Programmed and attachedRoutes only", func(gw *gatewayv1.Gateway) {
			gw.Status.Listeners[0] = listener(metav1.ConditionFalse, "InvalidCertificateRef", "web-tls does not exist", metav1.ConditionTrue, 3)
		}, false},
		{"a condition's time only", func(gw *gatewayv1.Gateway) {
			gw.Status.Listeners[0].Conditions[1].LastTransitionTime = metav1.NewTime(time.Unix(1, 0))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, updated := base(), base()
			tc.change(updated)
			if got := gatewayChangedForRoutes.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: updated}); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
