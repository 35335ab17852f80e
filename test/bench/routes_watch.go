package main

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// routeWatch follows the routes and the routes ConfigMap as the harness's admin. It
// tells when want routes are Accepted at their generation by the Gateway's controller
// and held by the ConfigMap, and, once told of an edit, when the edited route is
// Accepted at its new generation and the ConfigMap holds its new path.
type routeWatch struct {
	gateway client.ObjectKey
	want    int
	all     chan struct{}

	mu       sync.Mutex
	accepted map[string]int64  // the generation each route was last seen Accepted at, by namespace/name
	held     map[string]string // what the routes ConfigMap holds: each route's path, by namespace/name
	// allAt is when every route was first seen Accepted and held, acceptedAt and heldAt
	// when each of the two was.
	allAt, acceptedAt, heldAt time.Time
	edit                      *routeEdit
}

// routeEdit is the edit the watch waits for: route name Accepted at generation, and held
// with path.
type routeEdit struct {
	name       string
	generation int64
	path       string
	done       chan struct{}
	at         time.Time
}

// watchRoutes starts following the routes and the routes ConfigMap of gw, which want
// routes name.
func watchRoutes(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, gw client.ObjectKey, want int) (*routeWatch, error) {
	w := &routeWatch{gateway: gw, want: want, all: make(chan struct{}), accepted: map[string]int64{}, held: map[string]string{}}
	if err := follow(ctx, cfg, scheme, &gatewayv1.HTTPRoute{}, cache.ByObject{}, w.observeRoute); err != nil {
		return nil, err
	}
	selector := labels.SelectorFromSet(labels.Set{
		gatewrightv1alpha1.LabelTemplate:   routesTemplate,
		gatewayv1.GatewayClassNameLabelKey: benchClass,
	})
	return w, follow(ctx, cfg, scheme, &corev1.ConfigMap{}, cache.ByObject{Label: selector}, w.observeConfigMap)
}

func (w *routeWatch) observeRoute(obj any) {
	if route, ok := obj.(*gatewayv1.HTTPRoute); ok {
		w.recordRoute(route.Namespace+"/"+route.Name, acceptedGeneration(route, w.gateway), time.Now())
	}
}

func (w *routeWatch) observeConfigMap(obj any) {
	if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Namespace == w.gateway.Namespace {
		w.recordHeld(heldRoutes(cm.Data), time.Now())
	}
}

// acceptedGeneration is the generation route's status says gw's controller accepted it
// at, if it says Accepted=True for its current generation; else 0.
func acceptedGeneration(route *gatewayv1.HTTPRoute, gw client.ObjectKey) int64 {
	for _, p := range route.Status.Parents {
		if !gatewrightv1alpha1.IsGatewright(p.ControllerName) {
			continue
		}
		if key, ok := parentGateway(route, p.ParentRef); !ok || key != gw {
			continue
		}
		c := meta.FindStatusCondition(p.Conditions, string(gatewayv1.RouteConditionAccepted))
		if c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == route.Generation {
			return route.Generation
		}
	}
	return 0
}

// recordRoute notes that route name was seen Accepted at generation (0: not Accepted)
// at now.
func (w *routeWatch) recordRoute(name string, generation int64, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if generation == 0 {
		delete(w.accepted, name)
	} else {
		w.accepted[name] = generation
	}
	w.check(now)
}

// recordHeld notes what the routes ConfigMap held at now.
func (w *routeWatch) recordHeld(held map[string]string, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held = held
	w.check(now)
}

// check closes what is done at now; w.mu is held.
func (w *routeWatch) check(now time.Time) {
	if w.acceptedAt.IsZero() && len(w.accepted) >= w.want {
		w.acceptedAt = now
	}
	if w.heldAt.IsZero() && len(w.held) >= w.want {
		w.heldAt = now
	}
	if w.allAt.IsZero() && len(w.accepted) >= w.want && len(w.held) >= w.want {
		w.allAt = now
		close(w.all)
	}
	if e := w.edit; e != nil && e.at.IsZero() && w.accepted[e.name] >= e.generation && w.held[e.name] == e.path {
		e.at = now
		close(e.done)
	}
}

// expect makes the watch wait for route name at generation, held with path, and
// returns what is closed once it is.
func (w *routeWatch) expect(name string, generation int64, path string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.edit = &routeEdit{name: name, generation: generation, path: path, done: make(chan struct{})}
	w.check(time.Now())
	return w.edit.done
}

// counts are how many routes are Accepted and how many held now.
func (w *routeWatch) counts() (accepted, held int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.accepted), len(w.held)
}

// times are when every route was first seen Accepted, held, and both.
func (w *routeWatch) times() (accepted, held, all time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acceptedAt, w.heldAt, w.allAt
}

// editedAt is when the edit was first seen done.
func (w *routeWatch) editedAt() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.edit.at
}
