package controllers

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
)

// referrersOfGrant lists the objects of kind (of the Gateway API group, listed into
// list) with a reference that the ReferenceGrant obj permits or stops permitting: of a
// namespace it lets kind refer from, naming (referents) an object of its namespace that
// it lets them refer to; index is kind's index of the other namespaces its references
// name. A grant naming namespaces where nothing refers through it reaches nothing. On an
// update both the old and the new grant are mapped, so references it drops are seen too.
func referrersOfGrant(ctx context.Context, r client.Reader, obj client.Object, kind string, list client.ObjectList, index string, referents func(client.Object) []attach.Referent) []reconcile.Request {
	grant, ok := obj.(*gatewayv1.ReferenceGrant)
	if !ok {
		return nil
	}
	grants := []gatewayv1.ReferenceGrant{*grant}
	var names []types.NamespacedName
	for _, namespace := range attach.ReferrerNamespaces(grant, gatewayv1.GroupName, kind) {
		if err := r.List(ctx, list, client.InNamespace(namespace), client.MatchingFields{index: grant.Namespace}); err != nil {
			return nil
		}
		from := attach.Referrer{Group: gatewayv1.GroupName, Kind: kind, Namespace: namespace}
		permitted := func(to attach.Referent) bool {
			return to.Namespace == grant.Namespace && attach.ReferencePermitted(grants, from, to)
		}
		_ = meta.EachListItem(list, func(item runtime.Object) error { // the func never fails
			if referrer := item.(client.Object); slices.ContainsFunc(referents(referrer), permitted) {
				names = append(names, client.ObjectKeyFromObject(referrer))
			}
			return nil
		})
	}
	return ctrlutil.RequestsFor(names)
}
