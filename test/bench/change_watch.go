package main

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// bootstrapWatch follows the Gateways' bootstrap ConfigMaps, the one object a change
// changes, as the harness's admin, and tells when each ConfigMap the change reaches has
// its new content.
type bootstrapWatch struct {
	change floorChange
	want   int
	all    chan struct{}

	mu      sync.Mutex
	changed map[types.NamespacedName]bool
	last    time.Time
}

// watchBootstrap starts following the bootstrap ConfigMaps for change, which reaches
// want of them.
func watchBootstrap(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, change floorChange, want int) (*bootstrapWatch, error) {
	selector := labels.SelectorFromSet(labels.Set{
		gatewrightv1alpha1.LabelTemplate:   "bootstrap",
		gatewayv1.GatewayClassNameLabelKey: benchClass,
	})
	w := &bootstrapWatch{change: change, want: want, all: make(chan struct{}), changed: map[types.NamespacedName]bool{}}
	return w, follow(ctx, cfg, scheme, &corev1.ConfigMap{}, cache.ByObject{Label: selector}, w.observe)
}

func (w *bootstrapWatch) observe(obj any) {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		w.record(client.ObjectKeyFromObject(cm), cm.Data, time.Now())
	}
}

// record notes whether the ConfigMap key, whose data is data, has the change's content,
// seen at now.
func (w *bootstrapWatch) record(key types.NamespacedName, data map[string]string, now time.Time) {
	if !w.change.reaches(key.Namespace) {
		return
	}
	changed := true
	for k, v := range w.change.Bootstrap {
		changed = changed && data[k] == v
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.changed) >= w.want {
		return
	}
	if !changed {
		delete(w.changed, key)
		return
	}
	w.changed[key] = true
	if len(w.changed) == w.want {
		w.last = now
		close(w.all)
	}
}

func (w *bootstrapWatch) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.changed)
}

// lastChanged is when the last ConfigMap was seen with its new content.
func (w *bootstrapWatch) lastChanged() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}
