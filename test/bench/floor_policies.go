package main

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// floorPolicyController is the controllerName of the floor's policy statuses.
const floorPolicyController = gatewayv1.GatewayController("bench.gatewright.dev/floor")

// watchFloorPolicies makes the floor do what GEP-713 asks of any implementation of the
// bench's policies: each policy's status written once per generation, one ancestor per
// target with Accepted and Programmed, once it reaches a Gateway (as Gatewright judges a
// policy over the Gateways it reaches); so in the creation window, as Gatewright's. It
// judges nothing: the least that status costs.
func watchFloorPolicies(mgr ctrl.Manager, f *floor) error {
	kinds := map[string]struct {
		new  func() client.Object
		list func() client.ObjectList
		// in is where the policies reaching a Gateway of namespace are.
		in func(namespace string) string
	}{
		"floor-gatewayconfig": {
			func() client.Object { return &gatewrightv1alpha1.GatewayConfig{} },
			func() client.ObjectList { return &gatewrightv1alpha1.GatewayConfigList{} },
			func(namespace string) string { return namespace },
		},
		"floor-gatewayclassconfig": {
			func() client.Object { return &gatewrightv1alpha1.GatewayClassConfig{} },
			func() client.ObjectList { return &gatewrightv1alpha1.GatewayClassConfigList{} },
			func(string) string { return controllerNamespace },
		},
	}
	for name, kind := range kinds {
		reaching := func(ctx context.Context, gw *gatewayv1.Gateway) []reconcile.Request {
			list := kind.list()
			if err := f.List(ctx, list, client.InNamespace(kind.in(gw.Namespace))); err != nil {
				return nil
			}
			var requests []reconcile.Request
			_ = meta.EachListItem(list, func(obj runtime.Object) error {
				policy := obj.(client.Object)
				requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(policy)})
				return nil
			})
			return requests
		}
		err := ctrl.NewControllerManagedBy(mgr).
			Named(name).
			For(kind.new(), builder.WithPredicates(predicate.Funcs{
				CreateFunc: func(event.CreateEvent) bool { return false }, // a Gateway it reaches brings it
				UpdateFunc: func(e event.UpdateEvent) bool { return e.ObjectNew.GetGeneration() != e.ObjectOld.GetGeneration() },
			})).
			Watches(&gatewayv1.Gateway{}, handler.TypedEnqueueRequestsFromMapFunc(func(ctx context.Context, obj client.Object) []reconcile.Request {
				return reaching(ctx, obj.(*gatewayv1.Gateway))
			}), builder.WithPredicates(predicate.Funcs{
				UpdateFunc: func(event.UpdateEvent) bool { return false },
			})).
			WithOptions(controller.Options{MaxConcurrentReconciles: floorWorkers}).
			Complete(reconcileFunc(func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
				return ctrl.Result{}, f.writePolicyStatus(ctx, req, kind.new())
			}))
		if err != nil {
			return err
		}
	}
	return nil
}

// writePolicyStatus writes the status of the policy req names once for its generation.
func (f *floor) writePolicyStatus(ctx context.Context, req ctrl.Request, policy client.Object) error {
	if err := f.Get(ctx, req.NamespacedName, policy); err != nil {
		return client.IgnoreNotFound(err)
	}
	status, targets := policyStatus(policy)
	original := policy.DeepCopyObject().(client.Object)
	if !floorPolicyStatus(status, targets, policy.GetNamespace(), policy.GetGeneration()) {
		return nil
	}
	return f.Status().Patch(ctx, policy, client.MergeFrom(original))
}

// policyStatus is the status and the targets of a policy of either kind.
func policyStatus(policy client.Object) (*gatewrightv1alpha1.PolicyStatus, []gatewayv1.LocalPolicyTargetReference) {
	switch p := policy.(type) {
	case *gatewrightv1alpha1.GatewayConfig:
		return &p.Status, p.Spec.TargetRefs
	case *gatewrightv1alpha1.GatewayClassConfig:
		return &p.Status, p.Spec.TargetRefs
	}
	return nil, nil
}

// floorPolicyStatus sets one ancestor per target, Accepted and Programmed at generation,
// and tells whether that changed the status.
func floorPolicyStatus(status *gatewrightv1alpha1.PolicyStatus, targets []gatewayv1.LocalPolicyTargetReference, namespace string, generation int64) bool {
	var ancestors []gatewayv1.PolicyAncestorStatus
	for _, t := range targets {
		ref := gatewayv1.ParentReference{Group: &t.Group, Kind: &t.Kind, Name: t.Name}
		if t.Kind != "GatewayClass" && t.Kind != "Namespace" {
			ns := gatewayv1.Namespace(namespace)
			ref.Namespace = &ns
		}
		ancestor := gatewayv1.PolicyAncestorStatus{AncestorRef: ref, ControllerName: floorPolicyController}
		for i := range status.Ancestors {
			if status.Ancestors[i].ControllerName == floorPolicyController && status.Ancestors[i].AncestorRef.Name == t.Name {
				ancestor.Conditions = status.Ancestors[i].Conditions
			}
		}
		ancestors = append(ancestors, ancestor)
	}
	changed := len(ancestors) != len(status.Ancestors)
	for i := range ancestors {
		for _, c := range []string{"Accepted", "Programmed"} {
			changed = meta.SetStatusCondition(&ancestors[i].Conditions, metav1.Condition{
				Type: c, Status: metav1.ConditionTrue, Reason: c, ObservedGeneration: generation,
			}) || changed
		}
	}
	status.Ancestors = ancestors
	return changed
}
