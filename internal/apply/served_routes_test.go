package apply

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

func routeAt(uid string, generation int64) metav1.Object {
	return &metav1.ObjectMeta{UID: types.UID(uid), Generation: generation}
}

func TestServes(t *testing.T) {
	served := ServedRoutes([]metav1.Object{routeAt("a", 1), routeAt("b", 3)})
	failing := &gatewrightv1alpha1.Rendering{ServedRoutes: served, NotApplied: "render failed"}
	tests := []struct {
		name  string
		head  *gatewrightv1alpha1.Rendering
		route metav1.Object
		want  bool
	}{
		{"no record: nothing applied yet", nil, routeAt("a", 1), false},
		{"latest render applied: its own verdicts say the rest", &gatewrightv1alpha1.Rendering{}, routeAt("z", 1), true},
		{"render failing, route held", failing, routeAt("b", 3), true},
		{"render failing, route edited since", failing, routeAt("b", 4), false},
		{"render failing, route new", failing, routeAt("c", 1), false},
		{"render failing, record unreadable", &gatewrightv1alpha1.Rendering{ServedRoutes: "!!", NotApplied: "x"}, routeAt("a", 1), false},
		{"render failing before any route was served", &gatewrightv1alpha1.Rendering{NotApplied: "x"}, routeAt("a", 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := Serves(tt.head, "infra/web", tt.route)
			if got != tt.want || (got == (why != "")) {
				t.Errorf("Serves = %v, %q; want %v and a reason only when not", got, why, tt.want)
			}
			if !got && !strings.Contains(why, "infra/web") {
				t.Errorf("the reason does not name the Gateway: %q", why)
			}
		})
	}
}

func TestServedRoutesHoldOrdinaryScaleAndFitTheirBound(t *testing.T) {
	routes := make([]metav1.Object, 10000) // the default bound on routes per Gateway
	for i := range routes {
		routes[i] = routeAt(fmt.Sprint("uid-", i), 1)
	}
	served := ServedRoutes(routes)
	if served == "" || len(ServedRoutes(append(routes, make([]metav1.Object, maxServedRoutes)...))) != 0 {
		t.Fatal("10,000 routes recorded none, or more than the bound recorded some")
	}
	if n := base64.StdEncoding.EncodedLen(maxServedRoutes * servedDigestSize); n > 128000 {
		t.Errorf("%d routes need %d characters, over the CRD's 128000", maxServedRoutes, n)
	}
	head := &gatewrightv1alpha1.Rendering{ServedRoutes: served, NotApplied: "x"}
	for _, i := range []int{0, 4999, 9999} {
		if ok, _ := Serves(head, "infra/web", routes[i]); !ok {
			t.Errorf("route %d of 10,000 is not found", i)
		}
	}
}
