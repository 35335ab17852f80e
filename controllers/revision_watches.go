package controllers

import (
	"context"
	"k8s.io/apimachinery/pkg/api/equality"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// blueprintRunsOtherwise passes the blueprint events after which its Gateways and routes
// may render something else: a creation or deletion, a new currentRevision, and a spec
// edit of a blueprint that has no revision yet. A blueprint with revisions renders them,
// whatever its spec says now: its edit reaches the Gateways as the revision it makes.
var blueprintRunsOtherwise = builder.WithPredicates(predicate.Or(blueprintComesOrGoes, currentRevisionMoved))

// blueprintComesOrGoes is blueprintRunsOtherwise without the new currentRevision: what
// reaches every Gateway of the blueprint's classes, whatever revision it runs.
var blueprintComesOrGoes = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, updated := e.ObjectOld.(*gatewrightv1alpha1.GatewayClassBlueprint), e.ObjectNew.(*gatewrightv1alpha1.GatewayClassBlueprint)
		return updated.Status.CurrentRevision == 0 && old.Generation != updated.Generation
	},
}

// currentRevisionMoved passes the blueprint updates that change its currentRevision.
var currentRevisionMoved = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.(*gatewrightv1alpha1.GatewayClassBlueprint).Status.CurrentRevision != e.ObjectNew.(*gatewrightv1alpha1.GatewayClassBlueprint).Status.CurrentRevision
	},
}

// targetRevisionChanged passes the Rendering updates that assign its Gateway another
// revision (the rollout engine's one write per Gateway).
var targetRevisionChanged = builder.WithPredicates(predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, new := e.ObjectOld.(*gatewrightv1alpha1.Rendering), e.ObjectNew.(*gatewrightv1alpha1.Rendering)
		return old.TargetRevision != new.TargetRevision || old.TargetBlueprint != new.TargetBlueprint
	},
})

// gatewayHeadChanged passes the Rendering updates that change what the routes on its
// Gateway read of it: the revision assigned, or which routes the Gateway left out; and
// a new Rendering that leaves routes out (the routes read none before).
var gatewayHeadChanged = builder.WithPredicates(predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		return e.Object.(*gatewrightv1alpha1.Rendering).RouteCutoff != nil
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, new := e.ObjectOld.(*gatewrightv1alpha1.Rendering), e.ObjectNew.(*gatewrightv1alpha1.Rendering)
		return old.TargetRevision != new.TargetRevision || old.TargetBlueprint != new.TargetBlueprint || !equality.Semantic.DeepEqual(old.RouteCutoff, new.RouteCutoff)
	},
})

// routeRefusalChanged passes the route Renderings whose templates' refusal came or went:
// the Gateway leaves the route out, or takes it back. A Rendering deleted with a
// refusal lets the route back in as much as a cleared one.
var routeRefusalChanged = builder.WithPredicates(predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		return e.Object.(*gatewrightv1alpha1.Rendering).RouteRefused != ""
	},
	DeleteFunc: func(e event.DeleteEvent) bool {
		return e.Object.(*gatewrightv1alpha1.Rendering).RouteRefused != ""
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.(*gatewrightv1alpha1.Rendering).RouteRefused != e.ObjectNew.(*gatewrightv1alpha1.Rendering).RouteRefused
	},
})

// routesOfGatewayRendering maps a Gateway's Rendering to the routes that name the
// Gateway: they render with the revision it runs.
func (r *HTTPRouteReconciler) routesOfGatewayRendering(ctx context.Context, obj client.Object) []reconcile.Request {
	labels := obj.GetLabels()
	if labels[gatewrightv1alpha1.LabelHTTPRouteName] != "" {
		return nil
	}
	gw := &gatewayv1.Gateway{}
	gw.Namespace, gw.Name = labels[gatewrightv1alpha1.LabelGatewayNamespace], labels[gatewayv1.GatewayNameLabelKey]
	if gw.Name == "" {
		return nil
	}
	return r.routesOfGateway(ctx, gw)
}

// renderingsOfRevisions maps a Gateway's Rendering to the blueprint whose revision it
// records, so that the blueprint counts the Gateways per revision.
func renderingsOfRevisions(_ context.Context, obj client.Object) []reconcile.Request {
	rendering := obj.(*gatewrightv1alpha1.Rendering)
	if rendering.Owner.Kind != "Gateway" || rendering.Part != 0 || rendering.Values == nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: rendering.Values.Blueprint}}}
}

// recountCoalescing is how long a blueprint waits after a Rendering records a revision
// before it counts again how many Gateways run each: while a fleet is created or moves
// to a new revision, every Gateway's Rendering changes a count, and a status write for
// each would add one write per Gateway to the change.
const recountCoalescing = 5 * time.Second

func recountAfter(reconcile.Request) time.Duration { return recountCoalescing }

// revisionRecordChanged passes the Renderings that come, go, or record another revision.
var revisionRecordChanged = builder.WithPredicates(predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, updated := e.ObjectOld.(*gatewrightv1alpha1.Rendering), e.ObjectNew.(*gatewrightv1alpha1.Rendering)
		return old.Revision != updated.Revision || old.TargetRevision != updated.TargetRevision || old.TargetBlueprint != updated.TargetBlueprint
	},
})
