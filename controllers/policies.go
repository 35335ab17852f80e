package controllers

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// policy is a GatewayClassConfig or a GatewayConfig, seen the same way.
type policy struct {
	object  client.Object
	targets []gatewayv1.LocalPolicyTargetReference
	blocks  *gatewrightv1alpha1.DefaultsAndOverrides
	status  *gatewayv1.PolicyStatus
}

func asPolicy(obj client.Object) policy {
	switch p := obj.(type) {
	case *gatewrightv1alpha1.GatewayClassConfig:
		return policy{object: p, targets: p.Spec.TargetRefs, blocks: &p.Spec.DefaultsAndOverrides, status: &p.Status}
	case *gatewrightv1alpha1.GatewayConfig:
		return policy{object: p, targets: p.Spec.TargetRefs, blocks: &p.Spec.DefaultsAndOverrides, status: &p.Status}
	}
	panic(fmt.Sprintf("not a policy: %T", obj))
}

// policiesTargeting lists, sorted by namespace/name, the policies in list (a
// GatewayClassConfigList or a GatewayConfigList) of namespace that target it. It reads
// the cache without copies: a tenant's policies may be many and large, and only their
// targets are read.
func policiesTargeting(ctx context.Context, r client.Reader, namespace string, list client.ObjectList) ([]string, error) {
	if err := r.List(ctx, list, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	var names []string
	_ = meta.EachListItem(list, func(item runtime.Object) error { // the func never fails
		if p := asPolicy(item.(client.Object)); targetsNamespace(p.targets, namespace) {
			names = append(names, p.object.GetNamespace()+"/"+p.object.GetName())
		}
		return nil
	})
	sort.Strings(names)
	return names, nil
}

func targetsNamespace(refs []gatewayv1.LocalPolicyTargetReference, namespace string) bool {
	for _, ref := range refs {
		if ref.Group == "" && ref.Kind == "Namespace" && string(ref.Name) == namespace {
			return true
		}
	}
	return false
}
