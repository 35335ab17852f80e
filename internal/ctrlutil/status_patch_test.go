package ctrlutil

import (
	"encoding/json"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The status patch is the one client.MergeFrom computes from copies of the whole Gateway.
func TestGatewayStatusPatchIsMergeFromsPatch(t *testing.T) {
	address := []gatewayv1.GatewayStatusAddress{{Type: ptr.To(gatewayv1.IPAddressType), Value: "10.0.0.1"}}
	programmed := []metav1.Condition{{Type: "Programmed", Status: metav1.ConditionTrue, Reason: "Programmed", Message: "5 object(s) applied and ready"}}
	listener := []gatewayv1.ListenerStatus{{Name: "http", AttachedRoutes: 2, Conditions: programmed}}
	tests := []struct {
		name              string
		original, current gatewayv1.GatewayStatus
	}{
		{"a first status", gatewayv1.GatewayStatus{}, gatewayv1.GatewayStatus{Addresses: address, Conditions: programmed, Listeners: listener}},
		{"addresses cleared", gatewayv1.GatewayStatus{Addresses: address, Conditions: programmed}, gatewayv1.GatewayStatus{Conditions: programmed}},
		{"a condition changed", gatewayv1.GatewayStatus{Conditions: programmed}, gatewayv1.GatewayStatus{Conditions: []metav1.Condition{{Type: "Programmed", Status: metav1.ConditionFalse, Reason: "Invalid"}}}},
		{"unchanged", gatewayv1.GatewayStatus{Listeners: listener}, gatewayv1.GatewayStatus{Listeners: listener}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw := &gatewayv1.Gateway{
				ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web", Labels: map[string]string{"a": "b"}},
				Spec:       gatewayv1.GatewaySpec{GatewayClassName: "internet"},
				Status:     tt.original,
			}
			original := gw.DeepCopy()
			gw.Status = tt.current
			want := patchOf(t, client.MergeFrom(original), gw)
			if got := patchOf(t, statusPatch(tt.original, tt.current, ""), gw); !reflect.DeepEqual(got, want) {
				t.Errorf("patch %v, want %v", got, want)
			}
		})
	}
}

// A route's status patch is the one client.MergeFromWithOptimisticLock computes from
// copies of the whole HTTPRoute: its resourceVersion keeps other controllers' entries.
func TestRouteStatusPatchIsMergeFromsPatchWithALock(t *testing.T) {
	accepted := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted"}}
	ours := gatewayv1.RouteParentStatus{ParentRef: gatewayv1.ParentReference{Name: "web"}, ControllerName: "gatewright.dev/gateway-controller", Conditions: accepted}
	theirs := gatewayv1.RouteParentStatus{ParentRef: gatewayv1.ParentReference{Name: "other"}, ControllerName: "example.com/other", Conditions: accepted}
	tests := []struct {
		name              string
		original, current []gatewayv1.RouteParentStatus
	}{
		{"a first status", nil, []gatewayv1.RouteParentStatus{ours}},
		{"ours next to theirs", []gatewayv1.RouteParentStatus{theirs}, []gatewayv1.RouteParentStatus{theirs, ours}},
		{"ours gone", []gatewayv1.RouteParentStatus{theirs, ours}, []gatewayv1.RouteParentStatus{theirs}},
		{"none left", []gatewayv1.RouteParentStatus{ours}, []gatewayv1.RouteParentStatus{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			route := &gatewayv1.HTTPRoute{
				ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "shop", ResourceVersion: "42"},
				Spec:       gatewayv1.HTTPRouteSpec{Hostnames: []gatewayv1.Hostname{"shop.example.com"}},
				Status:     gatewayv1.HTTPRouteStatus{RouteStatus: gatewayv1.RouteStatus{Parents: tt.original}},
			}
			original := route.DeepCopy()
			route.Status.Parents = tt.current
			want := patchOf(t, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}), route)
			got := patchOf(t, statusPatch(original.Status, route.Status, route.ResourceVersion), route)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("patch %v, want %v", got, want)
			}
		})
	}
}

func patchOf(t *testing.T, patch client.Patch, obj client.Object) map[string]any {
	t.Helper()
	data, err := patch.Data(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
