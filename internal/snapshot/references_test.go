package snapshot

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/scheme"
)

// TestAPassReadsEachBackendOnce: the routes of a shared Gateway name a few Services
// thousands of times; a pass reads each Service, and the grants of each namespace, once,
// and every route resolves as if it had read them itself.
func TestAPassReadsEachBackendOnce(t *testing.T) {
	reads := map[string]int{}
	r := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "api"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shared", Name: "auth"}},
		&gatewayv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: "shared", Name: "from-team-a"}, Spec: gatewayv1.ReferenceGrantSpec{
			From: []gatewayv1.ReferenceGrantFrom{{Group: gatewayv1.GroupName, Kind: "HTTPRoute", Namespace: "team-a"}},
			To:   []gatewayv1.ReferenceGrantTo{{Kind: "Service"}},
		}},
	).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			reads["get "+key.String()]++
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			o := (&client.ListOptions{}).ApplyOptions(opts)
			reads[fmt.Sprintf("list %T %s", list, o.Namespace)]++
			return c.List(ctx, list, opts...)
		},
	}).Build()
	g := &Gatherer{Reader: r}
	ref := func(namespace, name string) gatewayv1.HTTPBackendRef {
		return gatewayv1.HTTPBackendRef{BackendRef: gatewayv1.BackendRef{BackendObjectReference: gatewayv1.BackendObjectReference{
			Namespace: ptr.To(gatewayv1.Namespace(namespace)), Name: gatewayv1.ObjectName(name), Port: ptr.To(gatewayv1.PortNumber(80)),
		}}}
	}
	for i := range 100 {
		route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: fmt.Sprintf("route-%d", i)}, Spec: gatewayv1.HTTPRouteSpec{
			Rules: []gatewayv1.HTTPRouteRule{{BackendRefs: []gatewayv1.HTTPBackendRef{ref("team-a", "api"), ref("shared", "auth"), ref("team-a", "gone")}}},
		}}
		res, err := g.BackendRefs(t.Context(), route)
		if err != nil {
			t.Fatal(err)
		}
		var resolved []bool
		for _, b := range res.BackendRefs {
			resolved = append(resolved, b.Resolved())
		}
		if fmt.Sprint(resolved) != "[true true false]" {
			t.Fatalf("route %d: backends resolved %v, want [true true false] (team-a/gone does not exist)", i, resolved)
		}
	}
	want := map[string]int{"get team-a/api": 1, "get shared/auth": 1, "get team-a/gone": 1, "list *v1.ReferenceGrantList shared": 1}
	if fmt.Sprint(reads) != fmt.Sprint(want) {
		t.Errorf("reads of 100 routes' backends: %v, want %v", reads, want)
	}
}
