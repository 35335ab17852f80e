package rollout

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
)

const healthyGateway = `
metadata: {namespace: shop, name: web, generation: 3}
spec:
  gatewayClassName: internet
  listeners: [{name: http, port: 80, protocol: HTTP}]
status:
  conditions:
  - {type: Accepted, status: "True", reason: Accepted, observedGeneration: 3}
  - {type: Programmed, status: "True", reason: Programmed, observedGeneration: 3}
  listeners:
  - name: http
    conditions:
    - {type: Accepted, status: "True", reason: Accepted}
    - {type: Programmed, status: "True", reason: Programmed}
    - {type: ResolvedRefs, status: "True", reason: ResolvedRefs}
`

const healthyRoute = `
metadata: {namespace: shop, name: cart}
status:
  parents:
  - parentRef: {name: other}
    controllerName: gatewright.dev/gateway-controller
    conditions: [{type: Accepted, status: "False", reason: NotAllowedByListeners}]
  - parentRef: {name: web}
    controllerName: example.com/another-controller
    conditions: [{type: Accepted, status: "False", reason: NoMatchingParent}]
  - parentRef: {name: web}
    controllerName: gatewright.dev/gateway-controller
    conditions:
    - {type: Accepted, status: "True", reason: Accepted}
    - {type: ResolvedRefs, status: "True", reason: ResolvedRefs}
`

func decode[T any](t *testing.T, doc string) *T {
	t.Helper()
	v := new(T)
	if err := yaml.Unmarshal([]byte(doc), v); err != nil {
		t.Fatal(err)
	}
	return v
}

func setCondition(conditions []metav1.Condition, conditionType string, status metav1.ConditionStatus, reason, message string) {
	for i := range conditions {
		if conditions[i].Type == conditionType {
			conditions[i].Status, conditions[i].Reason, conditions[i].Message = status, reason, message
		}
	}
}

func TestHealthy(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, rendering *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering
		want  string
		// tenantOnly: all that is wrong is in the tenant's control.
		tenantOnly bool
	}{
		{"a Gateway with every condition True on the target revision is healthy", nil, "", false},
		{"objects not rendered yet are not healthy", func(*gatewayv1.Gateway, *gatewayv1.HTTPRoute, *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			return nil
		}, "its objects are not rendered yet", false},
		{"objects rendered from another revision are not healthy", func(_ *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			r.Revision = 1
			return r
		}, "its objects were rendered from revision 1, not 2", false},
		{"an object the Rendering records as not ready is not healthy, whatever the Gateway's conditions still say", func(_ *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			r.Objects = []gatewrightv1alpha1.RenderedObject{
				{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "web", Ready: true},
				{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web-proxy"},
			}
			return r
		}, "Deployment shop/web-proxy is not ready", false},
		{"a Gateway not Programmed names the reason and message", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(gw.Status.Conditions, "Programmed", metav1.ConditionFalse, "Pending", "Deployment shop/web is not available")
			return r
		}, "Gateway Programmed is False (Pending): Deployment shop/web is not available", false},
		{"a Gateway Programmed for an older generation is not healthy", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			gw.Generation = 4
			return r
		}, "Gateway Accepted is for generation 3, not 4", false},
		{"a render of the revision that fails is not healthy, and says the render's error", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(gw.Status.Conditions, "Programmed", metav1.ConditionFalse, "Invalid", `template "config" line 3: boom`)
			r.Revision = 1
			return r
		}, `it does not render from revision 2: template "config" line 3: boom`, false},
		{"a listener whose certificate does not resolve is not healthy (nor programmed), for a reason in its tenant's control", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(gw.Status.Listeners[0].Conditions, "ResolvedRefs", metav1.ConditionFalse, "InvalidCertificateRef", "secret tls not found")
			setCondition(gw.Status.Listeners[0].Conditions, "Programmed", metav1.ConditionFalse, "Invalid", "")
			return r
		}, "listener http ResolvedRefs is False (InvalidCertificateRef): secret tls not found", true},
		{"a Gateway whose only listener lacks its certificate is neither rendered nor programmed, for a reason in its tenant's control", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(gw.Status.Listeners[0].Conditions, "ResolvedRefs", metav1.ConditionFalse, "InvalidCertificateRef", "secret tls not found")
			setCondition(gw.Status.Listeners[0].Conditions, "Programmed", metav1.ConditionFalse, "Invalid", "")
			setCondition(gw.Status.Conditions, "Programmed", metav1.ConditionFalse, "Invalid", "no listener is valid")
			r.Revision = 1
			return r
		}, "listener http ResolvedRefs is False (InvalidCertificateRef): secret tls not found", true},
		{"a listener whose route kinds the class does not serve is not healthy, which a revision may cause", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(gw.Status.Listeners[0].Conditions, "ResolvedRefs", metav1.ConditionFalse, "InvalidRouteKinds", "GRPCRoute")
			return r
		}, "listener http ResolvedRefs is False (InvalidRouteKinds): GRPCRoute", false},
		{"a route whose backend is missing is not healthy, for a reason in its tenant's control", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(route.Status.Parents[2].Conditions, "ResolvedRefs", metav1.ConditionFalse, "BackendNotFound", "service cart not found")
			return r
		}, "HTTPRoute shop/cart ResolvedRefs is False (BackendNotFound): service cart not found", true},
		{"a failure a revision may cause is named before one in the tenant's control", func(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(gw.Status.Listeners[0].Conditions, "ResolvedRefs", metav1.ConditionFalse, "InvalidCertificateRef", "secret tls not found")
			setCondition(route.Status.Parents[2].Conditions, "Accepted", metav1.ConditionFalse, "UnsupportedValue", "template failed")
			return r
		}, "HTTPRoute shop/cart Accepted is False (UnsupportedValue): template failed", false},
		{"a listener without status is not healthy", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			gw.Spec.Listeners = append(gw.Spec.Listeners, gatewayv1.Listener{Name: "https"})
			return r
		}, "listener https has no status", false},
		{"a route that Gatewright could not render on this Gateway is not healthy", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(route.Status.Parents[2].Conditions, "Accepted", metav1.ConditionFalse, "UnsupportedValue", "template failed")
			return r
		}, "HTTPRoute shop/cart Accepted is False (UnsupportedValue): template failed", false},
		{"a route the listeners refuse is not attached, and does not count", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(route.Status.Parents[2].Conditions, "Accepted", metav1.ConditionFalse, "NotAllowedByListeners", "")
			setCondition(route.Status.Parents[2].Conditions, "ResolvedRefs", metav1.ConditionFalse, "BackendNotFound", "")
			return r
		}, "", false},
		{"a route of another namespace does not count, whatever its state: its tenant cannot hold this Gateway's wave", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			route.Namespace = "mallory"
			route.Status.Parents[2].ParentRef.Namespace = ptr.To(gatewayv1.Namespace("shop"))
			setCondition(route.Status.Parents[2].Conditions, "ResolvedRefs", metav1.ConditionFalse, "BackendNotFound", "")
			return r
		}, "", false},
		{"a route without Gatewright's status for this Gateway is not healthy", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			route.Status.Parents = route.Status.Parents[:2]
			return r
		}, "HTTPRoute shop/cart has no status for this Gateway yet", false},
		{"a long reason is cut to its bound", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) *gatewrightv1alpha1.Rendering {
			setCondition(gw.Status.Conditions, "Accepted", metav1.ConditionFalse, "Invalid", strings.Repeat("é", 1000))
			return r
		}, "Gateway Accepted is False (Invalid): " + strings.Repeat("é", 236) + "...", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gw := decode[gatewayv1.Gateway](t, healthyGateway)
			route := decode[gatewayv1.HTTPRoute](t, healthyRoute)
			rendering := &gatewrightv1alpha1.Rendering{Revision: 2}
			if c.spoil != nil {
				rendering = c.spoil(gw, route, rendering)
			}
			h := Healthy(gw, []routes.Route{route}, rendering, 2)
			if h.OK != (c.want == "") || h.Reason != c.want || h.TenantOnly != c.tenantOnly {
				t.Errorf("Healthy = %v, %q, tenant only %v; want %q, tenant only %v", h.OK, h.Reason, h.TenantOnly, c.want, c.tenantOnly)
			}
			if len(h.Reason) > maxReason {
				t.Errorf("the reason has %d bytes, more than %d", len(h.Reason), maxReason)
			}
		})
	}
}

func TestHealthySinceIsTheLatestRecordedTurn(t *testing.T) {
	at := func(minute int) metav1.Time {
		return metav1.NewTime(time.Date(2026, 11, 27, 12, minute, 0, 0, time.UTC))
	}
	cases := []struct {
		name  string
		spoil func(gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, rendering *gatewrightv1alpha1.Rendering)
		want  metav1.Time
	}{
		{"the first render of the revision, when it is the latest", func(_ *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, r *gatewrightv1alpha1.Rendering) {
			since := at(30)
			r.RevisionSince = &since
		}, at(30)},
		{"Programmed turning True", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, _ *gatewrightv1alpha1.Rendering) {
			gw.Status.Conditions[1].LastTransitionTime = at(40)
		}, at(40)},
		{"a listener's condition turning True", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, _ *gatewrightv1alpha1.Rendering) {
			gw.Status.Listeners[0].Conditions[1].LastTransitionTime = at(41)
		}, at(41)},
		{"a route's condition on this Gateway turning True", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, _ *gatewrightv1alpha1.Rendering) {
			route.Status.Parents[2].Conditions[0].LastTransitionTime = at(42)
		}, at(42)},
		{"not a listener's ResolvedRefs turning True: its tenant's certificate came back", func(gw *gatewayv1.Gateway, _ *gatewayv1.HTTPRoute, _ *gatewrightv1alpha1.Rendering) {
			gw.Status.Listeners[0].Conditions[2].LastTransitionTime = at(44)
		}, at(10)},
		{"not a route's ResolvedRefs turning True: its tenant's backend came back", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, _ *gatewrightv1alpha1.Rendering) {
			route.Status.Parents[2].Conditions[1].LastTransitionTime = at(45)
		}, at(10)},
		{"not a route's condition on another Gateway", func(_ *gatewayv1.Gateway, route *gatewayv1.HTTPRoute, _ *gatewrightv1alpha1.Rendering) {
			route.Status.Parents[0].Conditions[0].LastTransitionTime = at(43)
		}, at(10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gw := decode[gatewayv1.Gateway](t, healthyGateway)
			route := decode[gatewayv1.HTTPRoute](t, healthyRoute)
			gw.Status.Conditions[0].LastTransitionTime = at(10)
			rendering := &gatewrightv1alpha1.Rendering{Revision: 2}
			c.spoil(gw, route, rendering)
			h := Healthy(gw, []routes.Route{route}, rendering, 2)
			if !h.OK || !h.Since.Equal(c.want.Time) {
				t.Errorf("Healthy = %v since %s, want since %s", h.OK, h.Since, c.want.Time)
			}
		})
	}
}

func TestHealthyJudgesRoutesOfEveryKind(t *testing.T) {
	gw := decode[gatewayv1.Gateway](t, healthyGateway)
	httpRoute := decode[gatewayv1.HTTPRoute](t, healthyRoute)
	grpcRoute := decode[gatewayv1.GRPCRoute](t, strings.Replace(healthyRoute, "name: cart", "name: rpc", 1))
	setCondition(grpcRoute.Status.Parents[2].Conditions, "Accepted", metav1.ConditionFalse, "UnsupportedValue", "filter not supported")
	h := Healthy(gw, []routes.Route{httpRoute, grpcRoute}, &gatewrightv1alpha1.Rendering{Revision: 2}, 2)
	if want := "GRPCRoute shop/rpc Accepted is False (UnsupportedValue): filter not supported"; h.OK || h.Reason != want || h.TenantOnly {
		t.Errorf("Healthy = %v, %q, tenant only %v; want %q", h.OK, h.Reason, h.TenantOnly, want)
	}
}
