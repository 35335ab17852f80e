package controllers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/scheme"
)

func TestShortGatewayMessages(t *testing.T) {
	long := strings.Repeat("x", 1000)
	status := gatewayv1.GatewayStatus{
		Conditions: []metav1.Condition{{Type: "Programmed", Message: long}},
		Listeners:  []gatewayv1.ListenerStatus{{Name: "http", Conditions: []metav1.Condition{{Type: "Programmed", Message: long}}}},
	}
	short := shortGatewayMessages(status)
	for _, c := range append(short.Conditions, short.Listeners[0].Conditions...) {
		if len(c.Message) > conditions.RefusedMessage || !strings.HasPrefix(c.Message, "xxx") {
			t.Errorf("%s: %d bytes: %q", c.Type, len(c.Message), c.Message)
		}
	}
	if status.Conditions[0].Message != long || status.Listeners[0].Conditions[0].Message != long {
		t.Error("the status given was changed")
	}
}

// refusingLongMessages is a client whose API server refuses a status holding a
// Gatewright message longer than conditions.RefusedMessage, as the real one refuses one over
// 32768 bytes; it counts the status writes.
func refusingLongMessages(objs ...client.Object) (client.Client, *int) {
	writes := 0
	refuse := func(messages []string) error {
		writes++
		for _, m := range messages {
			if len(m) > conditions.RefusedMessage {
				return apierrors.NewInvalid(schema.GroupKind{Group: gatewayv1.GroupName, Kind: "Status"}, "x",
					field.ErrorList{field.TooLong(field.NewPath("status"), "", conditions.RefusedMessage)})
			}
		}
		return nil
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).WithStatusSubresource(objs...).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				var messages []string
				// Status patches are answered with metadata: what they say is in the patch.
				data, err := patch.Data(obj)
				if err != nil {
					return err
				}
				var sent struct {
					Status struct {
						Conditions []metav1.Condition
						Parents    []gatewayv1.RouteParentStatus
					}
				}
				if err := json.Unmarshal(data, &sent); err != nil {
					return err
				}
				for _, c := range sent.Status.Conditions {
					messages = append(messages, c.Message)
				}
				for _, p := range sent.Status.Parents {
					for _, c := range p.Conditions {
						if p.ControllerName == gatewrightv1alpha1.ControllerName {
							messages = append(messages, c.Message)
						}
					}
				}
				if err := refuse(messages); err != nil {
					return err
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	return c, &writes
}

func TestGatewayStatusRefusedIsWrittenShort(t *testing.T) {
	ctx := context.Background()
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Generation: 1}}
	gw.Status.Conditions = []metav1.Condition{{Type: "Programmed", Status: metav1.ConditionTrue, Reason: "Programmed", LastTransitionTime: metav1.Now()}}
	c, writes := refusingLongMessages(gw)
	r := &GatewayReconciler{programmer: programmer{Client: c}}

	s := newGatewayStatus(gw, listeners.Evaluate(listeners.Serves{}, gw.Spec.Listeners, nil))
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, strings.Repeat("x", 1000))
	if err := r.patchStatus(ctx, gw, s); err != nil {
		t.Fatal(err)
	}
	got := &gatewayv1.Gateway{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(gw), got); err != nil {
		t.Fatal(err)
	}
	programmed := meta.FindStatusCondition(got.Status.Conditions, "Programmed")
	if *writes != 2 || programmed.Status != metav1.ConditionFalse || len(programmed.Message) > conditions.RefusedMessage {
		t.Errorf("%d writes; Programmed=%s, %d bytes", *writes, programmed.Status, len(programmed.Message))
	}
}

func TestRouteStatusRefusedIsWrittenShort(t *testing.T) {
	ctx := context.Background()
	ref := gatewayv1.ParentReference{Name: "web"}
	theirs := gatewayv1.RouteParentStatus{ParentRef: ref, ControllerName: "example.com/other",
		Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", Message: strings.Repeat("o", 1000), LastTransitionTime: metav1.Now()}}}
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", Generation: 1}}
	route.Spec.ParentRefs = []gatewayv1.ParentReference{ref}
	route.Status.Parents = []gatewayv1.RouteParentStatus{theirs}
	c, writes := refusingLongMessages(route)
	r := &RouteReconciler{programmer: programmer{Client: c}, Kind: routes.KindHTTPRoute}

	ours := routeParentStatus(route, ref, attach.Result{Listeners: []gatewayv1.SectionName{"http"}}, attach.Resolution{Reason: gatewayv1.RouteReasonResolvedRefs})
	setRouteCondition(&ours, route, gatewayv1.RouteConditionAccepted, false, gatewayv1.RouteReasonUnsupportedValue, strings.Repeat("x", 40000))
	if len(ours.Conditions[0].Message) > conditions.MaxMessage {
		t.Errorf("condition message of %d bytes", len(ours.Conditions[0].Message))
	}
	elsewhere := &gatewaysElsewhere{reader: c, known: map[string]bool{}}
	if err := r.patchStatus(ctx, route, map[string][]gatewayv1.RouteParentStatus{"ns/web": {ours}}, elsewhere); err != nil {
		t.Fatal(err)
	}
	got := &gatewayv1.HTTPRoute{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(route), got); err != nil {
		t.Fatal(err)
	}
	if *writes != 2 || len(got.Status.Parents) != 2 {
		t.Fatalf("%d writes; %d parents", *writes, len(got.Status.Parents))
	}
	if got.Status.Parents[0].Conditions[0].Message != theirs.Conditions[0].Message {
		t.Error("another controller's message was changed")
	}
	if accepted := meta.FindStatusCondition(got.Status.Parents[1].Conditions, "Accepted"); accepted.Status != metav1.ConditionFalse || len(accepted.Message) > conditions.RefusedMessage {
		t.Errorf("Accepted=%s, %d bytes", accepted.Status, len(accepted.Message))
	}
}
