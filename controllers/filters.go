package controllers

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
)

// The event filters that several reconcilers share: of blueprints, of Renderings, and
// of the render failures that Gateways and routes report.

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

// routeAttachmentChanged passes the route events that can change where the route
// attaches, and so which Gateways and routes a policy reaches: a creation or a deletion,
// the start of a deletion, and an edit of its parentRefs or hostnames. A policy's values
// and verdict never read a route's rules: without this, the edit of one path on a
// Gateway of thousands of routes judged every policy near it again, each over all of
// them, beside the Gateway's render of that edit.
var routeAttachmentChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, updated := e.ObjectOld.(routes.Route), e.ObjectNew.(routes.Route)
		return !old.GetDeletionTimestamp().Equal(updated.GetDeletionTimestamp()) ||
			!equality.Semantic.DeepEqual(routes.ParentRefs(old), routes.ParentRefs(updated)) ||
			!slices.Equal(routes.Hostnames(old), routes.Hostnames(updated))
	},
}

// routeRenderFailureChanged is renderFailureChanged for routes.
var routeRenderFailureChanged = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		return translate.RouteRenderFailure(e.Object) != ""
	},
	UpdateFunc: func(e event.UpdateEvent) bool {
		return translate.RouteRenderFailure(e.ObjectOld) != translate.RouteRenderFailure(e.ObjectNew)
	},
	DeleteFunc: func(e event.DeleteEvent) bool {
		return routes.KindOf(e.Object) == "" || translate.RouteRenderFailure(e.Object) != ""
	},
}

// renderFailureChanged lets through the Gateway events that change whether, or how, its
// render failed, so that a fleet settling does not wake the blueprint and class once per
// Gateway.
var renderFailureChanged = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool {
		_, failed := translate.RenderFailure(e.Object.(*gatewayv1.Gateway))
		return failed
	},
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, failedBefore := translate.RenderFailure(e.ObjectOld.(*gatewayv1.Gateway))
		after, failedAfter := translate.RenderFailure(e.ObjectNew.(*gatewayv1.Gateway))
		return failedBefore != failedAfter || before != after
	},
	DeleteFunc: func(e event.DeleteEvent) bool {
		gw, isGateway := e.Object.(*gatewayv1.Gateway)
		if !isGateway {
			return true // a tombstone: it may have been failing
		}
		_, failed := translate.RenderFailure(gw)
		return failed
	},
}

// blueprintRunsOrRolls is blueprintRunsOtherwise and a rollout that starts, pauses,
// resumes, completes or rolls back: a riding GatewayClassConfig's summary follows its
// change's rollout, and a pause or a rollback need not move any Gateway.
var blueprintRunsOrRolls = builder.WithPredicates(predicate.Or(blueprintComesOrGoes, currentRevisionMoved, rolloutPhaseMoved))

// rolloutPhaseMoved passes the blueprint updates that change its rollout's revision or
// phase: a few per rollout, not one per wave.
var rolloutPhaseMoved = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, updated := e.ObjectOld.(*gatewrightv1alpha1.GatewayClassBlueprint).Status.Rollout, e.ObjectNew.(*gatewrightv1alpha1.GatewayClassBlueprint).Status.Rollout
		if old == nil || updated == nil {
			return old != updated
		}
		return old.Revision != updated.Revision || old.Phase != updated.Phase
	},
}
