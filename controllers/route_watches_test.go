package controllers

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/scheme"
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

// backendRoute is a route whose one backendRef names the Service service of
// serviceNamespace.
func backendRoute(namespace, name, serviceNamespace, service string) *gatewayv1.HTTPRoute {
	ns := gatewayv1.Namespace(serviceNamespace)
	return &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: gatewayv1.HTTPRouteSpec{Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{{
			BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{Name: gatewayv1.ObjectName(service), Namespace: &ns}},
		}}}}},
	}
}

// routeWatchClient holds one route of victim that refers to team-a's Service api, and
// 30 routes each in victim and quiet that refer to their own namespace's api.
func routeWatchClient() client.Client {
	objs := []client.Object{backendRoute("victim", "referring", "team-a", "api")}
	for i := 0; i < 30; i++ {
		objs = append(objs, backendRoute("victim", fmt.Sprintf("local-%d", i), "victim", "api"))
		objs = append(objs, backendRoute("quiet", fmt.Sprintf("local-%d", i), "quiet", "api"))
	}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).
		WithIndex(&gatewayv1.HTTPRoute{}, indexRouteBackendNamespace, routeBackendNamespaces).
		WithIndex(&gatewayv1.HTTPRoute{}, indexRouteService, routeServices).Build()
}

// TestRoutesOfGrant: a ReferenceGrant reaches only the routes whose backendRefs it can
// permit, however many other routes its from namespace holds.
func TestRoutesOfGrant(t *testing.T) {
	r := &RouteReconciler{programmer: programmer{Client: routeWatchClient()}, Kind: routes.KindHTTPRoute}
	for _, tc := range []struct {
		name  string
		grant *gatewayv1.ReferenceGrant
		want  string
	}{
		{"50 writes to a grant naming a namespace where no route refers to the grant's enqueue nothing", grant("team-a", "quiet", "HTTPRoute", "Service", ""), "0 for 0 object(s)"},
		{"50 writes to a grant enqueue only the route that refers through it, once a write", grant("team-a", "victim", "HTTPRoute", "Service", ""), "50 for 1 object(s)"},
		{"a grant of the Service the route names reaches it", grant("team-a", "victim", "HTTPRoute", "Service", "api"), "50 for 1 object(s)"},
		{"a grant of another Service reaches no route", grant("team-a", "victim", "HTTPRoute", "Service", "web"), "0 for 0 object(s)"},
		{"a grant to Secrets reaches no route", grant("team-a", "victim", "HTTPRoute", "Secret", ""), "0 for 0 object(s)"},
		{"a grant to Gateways reaches no route", grant("team-a", "victim", "Gateway", "Service", ""), "0 for 0 object(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := grantWrites(ctrlutil.MapTo(r.routesOfGrant), tc.grant).enqueued(); got != tc.want {
				t.Errorf("enqueued %s, want %s", got, tc.want)
			}
		})
	}
}

// TestRoutesOfService: a Service that comes or goes reaches the routes that name it,
// and only them.
func TestRoutesOfService(t *testing.T) {
	r := &RouteReconciler{programmer: programmer{Client: routeWatchClient()}, Kind: routes.KindHTTPRoute}
	for _, tc := range []struct {
		name, namespace, service string
		want                     int
	}{
		{"a Service another namespace's route names reaches that route", "team-a", "api", 1},
		{"a Service of a namespace reaches the routes that name it there", "victim", "api", 30},
		{"a Service no route names reaches none", "team-a", "web", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := serviceMetadata()
			svc.Namespace, svc.Name = tc.namespace, tc.service
			if got := len(r.routesOfService(context.Background(), svc)); got != tc.want {
				t.Errorf("enqueued %d, want %d", got, tc.want)
			}
		})
	}
}

// TestRouteAttachmentChanged: a policy is judged again for the route edits that can
// move where the route attaches, and not for an edit of its rules or its status.
func TestRouteAttachmentChanged(t *testing.T) {
	base := func() *gatewayv1.HTTPRoute {
		route := backendRoute("team-a", "web", "team-a", "api")
		route.Generation = 1
		route.Spec.ParentRefs = []gatewayv1.ParentReference{{Name: "edge"}}
		route.Spec.Hostnames = []gatewayv1.Hostname{"web.example.com"}
		return route
	}
	for _, tc := range []struct {
		name   string
		change func(*gatewayv1.HTTPRoute)
		want   bool
	}{
		{"another parent", func(r *gatewayv1.HTTPRoute) { r.Spec.ParentRefs[0].Name = "other" }, true},
		{"a parentRef's section", func(r *gatewayv1.HTTPRoute) {
			r.Spec.ParentRefs[0].SectionName = ptr.To(gatewayv1.SectionName("https"))
		}, true},
		{"another hostname", func(r *gatewayv1.HTTPRoute) { r.Spec.Hostnames = []gatewayv1.Hostname{"api.example.com"} }, true},
		{"the start of its deletion", func(r *gatewayv1.HTTPRoute) {
			r.DeletionTimestamp = ptr.To(metav1.Now())
		}, true},
		{"another backend", func(r *gatewayv1.HTTPRoute) {
			r.Generation = 2
			r.Spec.Rules[0].BackendRefs[0].Name = "api-v2"
		}, false},
		{"another path", func(r *gatewayv1.HTTPRoute) {
			r.Generation = 2
			r.Spec.Rules[0].Matches = []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Value: ptr.To("/v2")}}}
		}, false},
		{"its status", func(r *gatewayv1.HTTPRoute) {
			r.Status.Parents = []gatewayv1.RouteParentStatus{{ParentRef: r.Spec.ParentRefs[0], ControllerName: "gatewright.dev/controller"}}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, updated := base(), base()
			tc.change(updated)
			if got := routeAttachmentChanged.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: updated}); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
