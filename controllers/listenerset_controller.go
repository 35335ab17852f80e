package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
)

// ListenerSetReconciler takes back the verdict Gatewright wrote on a ListenerSet whose
// parentRef no longer names a Gateway of Gatewright's: its Gateway was deleted, or the
// ListenerSet was moved to another. The Gateway reconciler, which judges the ListenerSets
// of its Gateways, sees neither: a deleted Gateway has no reconcile that lists them, and
// a moved ListenerSet is no longer listed by its old Gateway.
type ListenerSetReconciler struct {
	client.Client
	shard shard
}

// parentState is what became of the Gateway a ListenerSet names, for its status.
type parentState int

const (
	// parentGatewright: a Gateway of Gatewright's classes, whose reconciler judges it.
	parentGatewright parentState = iota
	// parentGone: no such Gateway.
	parentGone
	// parentUnclaimed: a Gateway whose class does not exist.
	parentUnclaimed
	// parentForeign: a Gateway of another controller's class.
	parentForeign
)

func (r *ListenerSetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ls := &gatewayv1.ListenerSet{}
	if err := r.Get(ctx, req.NamespacedName, ls); err != nil || !judged(ls.Status) {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	parent, err := r.parentOf(ctx, ls)
	if err != nil {
		return ctrl.Result{}, err
	}
	status, left := leftStatus(ls, parent)
	if !left {
		return ctrl.Result{}, nil
	}
	// A ListenerSet no Gatewright class holds belongs to the primary shard, as the other
	// status no single class holds does.
	if primary, err := r.shard.primary(ctx, r.Client); err != nil || !primary {
		return ctrl.Result{}, err
	}
	// Locked: a verdict another controller wrote since the cache read is not undone.
	return ctrl.Result{}, ctrlutil.WriteStatus(ctx, r.Client, ls, ls.Status, status, shortListenerSetMessages, ctrlutil.OptimisticLock(ls))
}

// parentOf is what became of the Gateway ls names.
func (r *ListenerSetReconciler) parentOf(ctx context.Context, ls *gatewayv1.ListenerSet) (parentState, error) {
	key, isGateway := attach.ListenerSetParent(ls)
	if !isGateway {
		return parentGone, nil
	}
	gw := &gatewayv1.Gateway{}
	if err := r.Get(ctx, key, gw); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return parentGone, nil
		}
		return 0, err
	}
	class, err := getClass(ctx, r.Client, string(gw.Spec.GatewayClassName))
	switch {
	case err != nil:
		return 0, err
	case class == nil:
		return parentUnclaimed, nil
	case r.shard.ownership(class) == unowned:
		return parentForeign, nil
	}
	return parentGatewright, nil
}

// judged tells whether a controller wrote a verdict in status: the API server's default
// says Pending, with no listeners.
func judged(status gatewayv1.ListenerSetStatus) bool {
	for _, c := range status.Conditions {
		if c.Reason != string(gatewayv1.ListenerSetReasonPending) {
			return true
		}
	}
	return len(status.Listeners) > 0
}

// leftStatus is the status of ls, which holds a verdict, now that its parent is as
// parent says, and whether Gatewright writes it. Its listeners go: no Gateway of
// Gatewright's takes them. A Gateway that is gone is said to be; otherwise the status
// is the API server's default, Pending, which says no controller judged it. On a Gateway
// of another controller's class, only a verdict of an older generation than the
// ListenerSet's (written before its parentRef was edited) is taken back: one of its own
// generation may be that controller's.
func leftStatus(ls *gatewayv1.ListenerSet, parent parentState) (gatewayv1.ListenerSetStatus, bool) {
	switch parent {
	case parentGatewright:
		return gatewayv1.ListenerSetStatus{}, false
	case parentForeign:
		accepted := meta.FindStatusCondition(ls.Status.Conditions, string(gatewayv1.ListenerSetConditionAccepted))
		if accepted == nil || accepted.ObservedGeneration >= ls.Generation {
			return gatewayv1.ListenerSetStatus{}, false
		}
	}
	status := gatewayv1.ListenerSetStatus{Conditions: ls.Status.DeepCopy().Conditions}
	set := func(t gatewayv1.ListenerSetConditionType) {
		c := metav1.Condition{Type: string(t), Status: metav1.ConditionUnknown, Reason: string(gatewayv1.ListenerSetReasonPending), Message: "Waiting for controller", ObservedGeneration: ls.Generation}
		if parent == parentGone {
			key, _ := attach.ListenerSetParent(ls)
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, string(gatewayv1.ListenerSetReasonParentNotAccepted), fmt.Sprintf("its parent Gateway %s does not exist", key)
		}
		meta.SetStatusCondition(&status.Conditions, c)
	}
	set(gatewayv1.ListenerSetConditionAccepted)
	set(gatewayv1.ListenerSetConditionProgrammed)
	return status, true
}

func (r *ListenerSetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("listenerset").
		For(&gatewayv1.ListenerSet{}, ctrlutil.SpecChanged).
		Watches(&gatewayv1.Gateway{}, ctrlutil.MapTo(r.listenerSetsOfGateway), builder.WithPredicates(parentLeft)).
		Complete(ctrlutil.RetryingConflicts(r, staleRecord))
}

// parentLeft passes the Gateway events after which its ListenerSets may have no
// Gateway of Gatewright's: its deletion, and a change of its class.
var parentLeft = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, isGateway := e.ObjectOld.(*gatewayv1.Gateway)
		updated, stillGateway := e.ObjectNew.(*gatewayv1.Gateway)
		return isGateway && stillGateway && old.Spec.GatewayClassName != updated.Spec.GatewayClassName
	},
}

// listenerSetsOfGateway: the ListenerSets naming gw as their parent.
func (r *ListenerSetReconciler) listenerSetsOfGateway(ctx context.Context, gw client.Object) []reconcile.Request {
	items, err := listenerSetsOf(ctx, r.Client, gw)
	if err != nil {
		return nil
	}
	requests := make([]reconcile.Request, len(items))
	for i := range items {
		requests[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&items[i])}
	}
	return requests
}
