package routing

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sortMatches moves the matches along the cycles of their order, in place: every
// permutation comes out as a sort of a copy does.
func TestSortMatchesPermutesInPlace(t *testing.T) {
	type match struct {
		route ObjectRef
		rank  int
	}
	routeOf := func(m *match) ObjectRef { return m.route }
	created := map[ObjectRef]metav1.Time{}
	compare := func(a, b *match, createdA, createdB metav1.Time) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), createdA.Compare(createdB.Time), cmp.Compare(a.route.Name, b.route.Name))
	}
	random := rand.New(rand.NewPCG(1, 2))
	for n := range 64 {
		for range 20 {
			matches := make([]match, n)
			for i := range matches {
				route := ObjectRef{Kind: "HTTPRoute", Namespace: "ns", Name: string(rune('a' + i%26))}
				created[route] = metav1.Unix(int64(random.IntN(3)), 0)
				matches[i] = match{route: route, rank: random.IntN(4)}
			}
			want := slices.Clone(matches)
			slices.SortStableFunc(want, func(a, b match) int { return compare(&a, &b, created[a.route], created[b.route]) })
			sortMatches(matches, routeOf, created, compare)
			for i := range matches {
				if compare(&matches[i], &want[i], created[matches[i].route], created[want[i].route]) != 0 {
					t.Fatalf("%d matches: position %d holds %+v, want %+v", n, i, matches[i], want[i])
				}
			}
		}
	}
}
