package routing

import (
	"encoding/json"
	"math"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/gatewright/gatewright/internal/routes"
)

// specSizesKept is how many routes' spec sizes specSizes holds before it starts over:
// far more than one Gateway serves, a few MiB at most.
const specSizesKept = 200_000

// specSizes remembers the size of each route's spec by its UID and generation, which
// the API server sets and moves with every change of the spec: the routes bound measures
// every route of a Gateway at each of its renders, and a Gateway of thousands of routes
// spent more on marshalling them than on the rest of the bound. Routes without a UID
// (read from files) are measured every time.
var specSizes = &sizeMemo{sizes: map[sizeKey]int{}}

type sizeKey struct {
	uid        types.UID
	generation int64
}

type sizeMemo struct {
	mu    sync.Mutex
	sizes map[sizeKey]int
}

// specSize is the size of a route's spec as JSON; a spec that does not marshal (it
// always does) counts as past every bound.
func specSize(route routes.Route) int {
	key := sizeKey{uid: route.GetUID(), generation: route.GetGeneration()}
	if key.uid != "" {
		if size, ok := specSizes.get(key); ok {
			return size
		}
	}
	size := math.MaxInt / 2
	if data, err := json.Marshal(routes.Spec(route)); err == nil {
		size = len(data)
	}
	if key.uid != "" {
		specSizes.put(key, size)
	}
	return size
}

func (m *sizeMemo) get(key sizeKey) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	size, ok := m.sizes[key]
	return size, ok
}

func (m *sizeMemo) put(key sizeKey, size int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sizes) >= specSizesKept {
		clear(m.sizes)
	}
	m.sizes[key] = size
}
