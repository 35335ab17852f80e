package snapshot

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Routes sorted in place come out as a sort of a copy would put them, whatever order
// they came in, each with its own spec.
func TestSortRoutesInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		routes := make([]gatewayv1.HTTPRoute, n)
		for i := range routes {
			routes[i].ObjectMeta = metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i%3), Name: fmt.Sprintf("r-%d", i)}
			routes[i].Spec.Hostnames = []gatewayv1.Hostname{gatewayv1.Hostname(routes[i].Name)}
		}
		rng.Shuffle(n, func(i, j int) { routes[i], routes[j] = routes[j], routes[i] })
		want := slices.Clone(routes)
		slices.SortFunc(want, func(a, b gatewayv1.HTTPRoute) int {
			return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
		})
		sortRoutes(routes)
		for i := range routes {
			if routes[i].Namespace != want[i].Namespace || routes[i].Name != want[i].Name || string(routes[i].Spec.Hostnames[0]) != routes[i].Name {
				t.Fatalf("%d routes: position %d holds %s/%s, want %s/%s", n, i, routes[i].Namespace, routes[i].Name, want[i].Namespace, want[i].Name)
			}
		}
	}
}
