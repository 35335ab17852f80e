package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// The floor learns of a change (change.go) from a ConfigMap the harness writes in the
// controller namespace, whose changeKey holds a floorChange as JSON: it has no templates
// or policies to watch. It then re-applies the changed object of every Gateway the change
// reaches, floorWorkers at a time, and records each of those Gateways once in a custom
// resource, as staged rollout must know which revision each Gateway runs (recordChange),
// and nothing else: the least the same change can cost.
const (
	floorChangeName = "bench-floor-change"
	changeKey       = "change"
)

// watchFloorChanges makes f apply each change the harness writes.
func watchFloorChanges(mgr ctrl.Manager, f *floor) error {
	isTheChange := predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return obj.GetNamespace() == controllerNamespace && obj.GetName() == floorChangeName
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("floor-change").
		For(&corev1.ConfigMap{}, builder.WithPredicates(isTheChange)).
		Complete(reconcileFunc(f.applyChange))
}

type reconcileFunc func(context.Context, ctrl.Request) (ctrl.Result, error)

func (r reconcileFunc) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return r(ctx, req)
}

// applyChange reads the change and applies the bootstrap ConfigMap of every Gateway it
// reaches.
func (f *floor) applyChange(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cm := &corev1.ConfigMap{}
	if err := f.Get(ctx, req.NamespacedName, cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var change floorChange
	if err := json.Unmarshal([]byte(cm.Data[changeKey]), &change); err != nil {
		return ctrl.Result{}, fmt.Errorf("ConfigMap %s/%s: %s: %w", cm.Namespace, cm.Name, changeKey, err)
	}
	f.mu.Lock()
	f.change = change
	f.mu.Unlock()
	gateways := &gatewayv1.GatewayList{}
	if err := f.List(ctx, gateways); err != nil {
		return ctrl.Result{}, err
	}
	next := make(chan *gatewayv1.Gateway)
	errs := make([]error, floorWorkers)
	var wg sync.WaitGroup
	for w := range floorWorkers {
		wg.Go(func() {
			for gw := range next {
				if errs[w] == nil {
					errs[w] = f.applyChild(ctx, gw, floorChildren(gw, change)[0])
				}
				if errs[w] == nil {
					errs[w] = f.recordChange(ctx, gw)
				}
			}
		})
	}
	for i := range gateways.Items {
		gw := &gateways.Items[i]
		if gw.Spec.GatewayClassName == benchClass && change.reaches(gw.Namespace) {
			next <- gw
		}
	}
	close(next)
	wg.Wait()
	return ctrl.Result{}, errors.Join(errs...)
}

// floorChangeYAML is the ConfigMap that tells the floor of c.
func floorChangeYAML(c change) (string, error) {
	data, err := json.Marshal(c.floorChange())
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: %s}\ndata: {%s: %q}\n",
		floorChangeName, controllerNamespace, changeKey, data), nil
}

// recordChange records that gw runs the change: one server-side apply of a Rendering
// of the floor's, the custom resource Gatewright records a Gateway's revision in.
func (f *floor) recordChange(ctx context.Context, gw *gatewayv1.Gateway) error {
	record := &gatewrightv1alpha1.Rendering{
		ObjectMeta: metav1.ObjectMeta{Namespace: gw.Namespace, Name: "floor." + gw.Name},
		Owner: gatewrightv1alpha1.RenderingOwner{
			Kind: "Gateway", Name: gw.Name, UID: gw.UID, GatewayNamespace: gw.Namespace, GatewayName: gw.Name,
		},
		Revision: changedRevision,
	}
	record.SetGroupVersionKind(gatewrightv1alpha1.GroupVersion.WithKind(gatewrightv1alpha1.KindRendering))
	return f.Patch(ctx, record, client.Apply, client.FieldOwner(floorFieldManager), client.ForceOwnership)
}

// changedRevision is the revision the floor records a changed Gateway at.
const changedRevision = 2
