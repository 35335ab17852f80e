package controllers

import (
	"context"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// setRouteAffected names, in the route's parent status, the GatewayClassConfigs and
// GatewayConfigs that change the route's values, at whatever level they reach it: a
// Gateway's or a provider's policy changes a route's values as much as the route's own.
func setRouteAffected(status *gatewayv1.RouteParentStatus, route routes.Route, policies []values.PolicyReport) {
	translate.SetAffected(&status.Conditions, route.GetGeneration(), policies)
}

// routeParentStatus is Gatewright's entry for one parentRef: Accepted by where it
// attaches, with attach's reason when nowhere; ResolvedRefs by the route's backendRefs,
// which do not keep it from being accepted.
func routeParentStatus(route routes.Route, ref gatewayv1.ParentReference, result attach.Result, backends attach.Resolution) gatewayv1.RouteParentStatus {
	status := gatewayv1.RouteParentStatus{ParentRef: ref, ControllerName: gatewrightv1alpha1.ControllerName}
	if result.Attached() {
		setRouteCondition(&status, route, gatewayv1.RouteConditionAccepted, true, gatewayv1.RouteReasonAccepted, "")
	} else {
		setRouteCondition(&status, route, gatewayv1.RouteConditionAccepted, false, result.Reason, result.Message)
	}
	setRouteCondition(&status, route, gatewayv1.RouteConditionResolvedRefs, backends.Resolved(), backends.Reason, backends.Message)
	return status
}

func setRouteCondition(status *gatewayv1.RouteParentStatus, route routes.Route, t gatewayv1.RouteConditionType, ok bool, reason gatewayv1.RouteConditionReason, message string) {
	conditions.Set(&status.Conditions, string(t), ok, string(reason), message, route.GetGeneration())
}

// patchStatus replaces this shard's RouteParentStatus entries, keeping other
// controllers' entries and other shards' (those for parentRefs that still name their
// Gateways), with an optimistic lock so that none of theirs is lost. Gatewright's entries
// follow the order of spec.parentRefs, so that every shard writes the same list. When the
// API server refuses the list, this shard's entries are written again with short
// messages, so that an older Accepted=True never stays because the news was too long.
func (r *RouteReconciler) patchStatus(ctx context.Context, route routes.Route, statuses map[string][]gatewayv1.RouteParentStatus, elsewhere *gatewaysElsewhere) error {
	var parentsStatus, ours []gatewayv1.RouteParentStatus
	original := *routes.Status(route)
	for _, s := range original.Parents {
		if !gatewrightv1alpha1.IsGatewright(s.ControllerName) {
			parentsStatus = append(parentsStatus, s)
			continue
		}
		if parentRefIndex(route, s.ParentRef) < 0 {
			continue
		}
		key := parentKey(route, s.ParentRef)
		if ls, isListenerSet := attach.ParentListenerSet(route.GetNamespace(), s.ParentRef); isListenerSet {
			// Another shard's when its ListenerSet's Gateway is; replaced when this round
			// wrote it anew, dropped when the ListenerSet is gone.
			if computed(statuses, s.ParentRef) {
				continue
			}
			parent, err := r.listenerSetParent(ctx, ls)
			if err != nil {
				return err
			}
			if key = parent; key == "" {
				continue
			}
		}
		theirs, err := elsewhere.has(ctx, key)
		if err != nil {
			return err
		}
		if theirs {
			ours = append(ours, s)
		}
	}
	for _, parentStatuses := range statuses {
		for _, s := range parentStatuses {
			for _, old := range original.Parents {
				if old.ControllerName == s.ControllerName && equality.Semantic.DeepEqual(old.ParentRef, s.ParentRef) {
					keepTransitionTimes(old.Conditions, s.Conditions)
				}
			}
			ours = append(ours, s)
		}
	}
	sort.SliceStable(ours, func(i, j int) bool {
		return parentRefIndex(route, ours[i].ParentRef) < parentRefIndex(route, ours[j].ParentRef)
	})
	parentsStatus = append(parentsStatus, ours...)
	if parentsStatus == nil {
		parentsStatus = []gatewayv1.RouteParentStatus{}
	}
	shortOurs := func(status gatewayv1.RouteStatus) gatewayv1.RouteStatus {
		short := slices.Clone(status.Parents)
		for i, s := range short {
			if _, mine := statuses[parentKey(route, s.ParentRef)]; mine && gatewrightv1alpha1.IsGatewright(s.ControllerName) {
				short[i].Conditions = conditions.Short(s.Conditions)
			}
		}
		return gatewayv1.RouteStatus{Parents: short}
	}
	current := gatewayv1.RouteStatus{Parents: parentsStatus}
	return ctrlutil.WriteStatus(ctx, r.Client, route, original, current, shortOurs, ctrlutil.OptimisticLock(route))
}

// listenerSetParent is "namespace/name" of the Gateway the ListenerSet key names as its
// parent, "" when it is gone or names none.
func (r *RouteReconciler) listenerSetParent(ctx context.Context, key types.NamespacedName) (string, error) {
	ls := &gatewayv1.ListenerSet{}
	if err := r.Get(ctx, key, ls); err != nil {
		return "", client.IgnoreNotFound(err)
	}
	parent, isGateway := attach.ListenerSetParent(ls)
	if !isGateway {
		return "", nil
	}
	return parent.String(), nil
}

// computed tells whether statuses hold an entry for ref.
func computed(statuses map[string][]gatewayv1.RouteParentStatus, ref gatewayv1.ParentReference) bool {
	for _, parentStatuses := range statuses {
		for _, s := range parentStatuses {
			if equality.Semantic.DeepEqual(s.ParentRef, ref) {
				return true
			}
		}
	}
	return false
}

// keepTransitionTimes carries lastTransitionTime over for conditions whose status did
// not change, so that a status that says the same is the same.
func keepTransitionTimes(old, updated []metav1.Condition) {
	for i := range updated {
		if c := meta.FindStatusCondition(old, updated[i].Type); c != nil && c.Status == updated[i].Status {
			updated[i].LastTransitionTime = c.LastTransitionTime
		}
	}
}

// parentRefIndex is the position of ref in the route's spec.parentRefs, -1 when the route
// no longer names it.
func parentRefIndex(route routes.Route, ref gatewayv1.ParentReference) int {
	return slices.IndexFunc(routes.ParentRefs(route), func(r gatewayv1.ParentReference) bool {
		return equality.Semantic.DeepEqual(r, ref)
	})
}

// parentKey is "namespace/name" of the Gateway ref names; of a ListenerSet's entry, the
// ListenerSet's, which no key of statuses is.
func parentKey(route routes.Route, ref gatewayv1.ParentReference) string {
	key, _ := attach.ParentGateway(route, ref)
	return key.String()
}
