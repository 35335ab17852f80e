package controllers

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestLeftStatus(t *testing.T) {
	// judgedAt is a ListenerSet of generation 2 holding Gatewright's verdict of generation
	// observed, with one listener.
	judgedAt := func(observed int64) *gatewayv1.ListenerSet {
		ls := &gatewayv1.ListenerSet{}
		ls.Namespace, ls.Name, ls.Generation = "team", "shop", 2
		ls.Spec.ParentRef = gatewayv1.ParentGatewayReference{Name: "web"}
		for _, t := range []gatewayv1.ListenerSetConditionType{gatewayv1.ListenerSetConditionAccepted, gatewayv1.ListenerSetConditionProgrammed} {
			meta.SetStatusCondition(&ls.Status.Conditions, metav1.Condition{Type: string(t), Status: metav1.ConditionTrue, Reason: string(t), ObservedGeneration: observed})
		}
		ls.Status.Listeners = []gatewayv1.ListenerEntryStatus{{Name: "shop"}}
		return ls
	}
	tests := []struct {
		name     string
		ls       *gatewayv1.ListenerSet
		parent   parentState
		want     string // Accepted as "Status/Reason: message", "" when left alone
		programs string
	}{
		{"on a Gateway of Gatewright's, its reconciler judges it", judgedAt(2), parentGatewright, "", ""},
		{"a Gateway gone is said to be", judgedAt(2), parentGone, "False/ParentNotAccepted: its parent Gateway team/web does not exist", "False/ParentNotAccepted"},
		{"a Gateway whose class does not exist leaves it to no controller", judgedAt(2), parentUnclaimed, "Unknown/Pending: Waiting for controller", "Unknown/Pending"},
		{"a verdict older than the parentRef naming another controller's Gateway is taken back", judgedAt(1), parentForeign, "Unknown/Pending: Waiting for controller", "Unknown/Pending"},
		{"a verdict of its generation, on another controller's Gateway, may be that controller's", judgedAt(2), parentForeign, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, left := leftStatus(tt.ls, tt.parent)
			if !left {
				if tt.want != "" {
					t.Errorf("left alone, want %s", tt.want)
				}
				return
			}
			accepted := meta.FindStatusCondition(status.Conditions, string(gatewayv1.ListenerSetConditionAccepted))
			programmed := meta.FindStatusCondition(status.Conditions, string(gatewayv1.ListenerSetConditionProgrammed))
			if got := string(accepted.Status) + "/" + accepted.Reason + ": " + accepted.Message; got != tt.want {
				t.Errorf("Accepted: got %s, want %s", got, tt.want)
			}
			if got := string(programmed.Status) + "/" + programmed.Reason; got != tt.programs {
				t.Errorf("Programmed: got %s, want %s", got, tt.programs)
			}
			if accepted.ObservedGeneration != 2 || len(status.Listeners) != 0 {
				t.Errorf("observed generation %d, %d listeners; want 2 and none", accepted.ObservedGeneration, len(status.Listeners))
			}
			if judged(status) != (tt.parent == parentGone) {
				t.Errorf("judged(%v) = %v", status.Conditions, judged(status))
			}
		})
	}
	if judged(gatewayv1.ListenerSetStatus{Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending"}}}) {
		t.Error("the API server's default status is taken for a verdict")
	}
}
