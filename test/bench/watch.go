package main

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// gatewayWatch follows the Gateways as the harness's admin, and tells when want of them
// are Programmed. One watch costs the API server far less than listing every Gateway
// over and over would, and the same for every contender.
type gatewayWatch struct {
	want int
	all  chan struct{}

	mu         sync.Mutex
	programmed map[types.NamespacedName]bool
	done       int
	last       time.Time
}

func watchGateways(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, want int) (*gatewayWatch, error) {
	w := &gatewayWatch{want: want, all: make(chan struct{}), programmed: map[types.NamespacedName]bool{}}
	return w, follow(ctx, cfg, scheme, &gatewayv1.Gateway{}, cache.ByObject{}, w.observe)
}

// follow calls observe with every object of obj's kind that by selects as it is added
// or updated, from a cache of its own, until ctx ends; it returns once the cache has
// synced.
func follow(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, obj client.Object, by cache.ByObject, observe func(any)) error {
	c, err := cache.New(cfg, cache.Options{Scheme: scheme, ByObject: map[client.Object]cache.ByObject{obj: by}})
	if err != nil {
		return err
	}
	informer, err := c.GetInformer(ctx, obj)
	if err != nil {
		return err
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    observe,
		UpdateFunc: func(_, updated any) { observe(updated) },
	})
	if err != nil {
		return err
	}
	go func() { _ = c.Start(ctx) }()
	c.WaitForCacheSync(ctx)
	return ctx.Err()
}

// observe records whether a Gateway is Programmed: Programmed=True at its generation,
// with an address.
func (w *gatewayWatch) observe(obj any) {
	gw, ok := obj.(*gatewayv1.Gateway)
	if !ok {
		return
	}
	c := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed))
	programmed := c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == gw.Generation && len(gw.Status.Addresses) > 0
	key := client.ObjectKeyFromObject(gw)
	w.mu.Lock()
	defer w.mu.Unlock()
	if programmed == w.programmed[key] || w.done >= w.want {
		return
	}
	w.programmed[key] = programmed
	if !programmed {
		w.done--
		return
	}
	w.done++
	if w.done == w.want {
		w.last = time.Now()
		close(w.all)
	}
}

func (w *gatewayWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

// lastProgrammed is when the last Gateway was seen Programmed.
func (w *gatewayWatch) lastProgrammed() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}
