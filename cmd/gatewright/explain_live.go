package main

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// liveReader reads from the cluster what the values of one Gateway, or of a route on
// it, are computed from, as the controller reads it.
type liveReader struct {
	client              client.Client
	controllerNamespace string
}

func (r liveReader) explainGateway(ctx context.Context, namespace, name string) (*explanation, error) {
	var gw gatewayv1.Gateway
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &gw); err != nil {
		return nil, err
	}
	snap, err := r.snapshot(ctx, &gw, nil)
	if err != nil {
		return nil, err
	}
	return newExplanation(&gw, nil, snap, snap.Valuing(&render.Cache{}, nil))
}

func (r liveReader) explainHTTPRoute(ctx context.Context, namespace, name, parent string) (*explanation, error) {
	var route gatewayv1.HTTPRoute
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &route); err != nil {
		return nil, err
	}
	gw, err := r.parentGateway(ctx, &route, parent)
	if err != nil {
		return nil, err
	}
	snap, err := r.snapshot(ctx, gw, &route)
	if err != nil {
		return nil, err
	}
	return newExplanation(gw, &route, snap, snap.Valuing(&render.Cache{}, &route))
}

// snapshot reads what the values of gw, or of route on it, are computed from, as the
// controller does: the class, the blueprint revision gw runs and the policies of the
// controller, Gateway and route namespaces. A read the caller may not make is an error
// (the caller then gets the values the Gateway's or route's record holds): values
// computed without a policy, or with another revision than the one the Gateway runs,
// would be wrong.
func (r liveReader) snapshot(ctx context.Context, gw *gatewayv1.Gateway, route *gatewayv1.HTTPRoute) (*translate.Gateway, error) {
	var class gatewayv1.GatewayClass
	if err := r.get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, &class); err != nil {
		return nil, err
	}
	if class.Spec.ControllerName != gatewrightv1alpha1.ControllerName {
		return nil, fmt.Errorf("GatewayClass %s: controllerName is %s, not %s", class.Name, class.Spec.ControllerName, gatewrightv1alpha1.ControllerName)
	}
	snap, err := snapshot.ForValues(ctx, r.client, r.controllerNamespace, gw, &class, route)
	if err != nil {
		return nil, fmt.Errorf("GatewayClass %s: %w", class.Name, err)
	}
	revs := runningRevisions{client: r.client, denied: &deniedReads{}, strict: true}
	rev, err := revs.running(ctx, gw, snap.Values.Blueprint)
	if err != nil {
		return nil, fmt.Errorf("GatewayClassBlueprint %s: %w", snap.Values.Blueprint.Name, err)
	}
	snap.Revision = snapshot.UseRevision(&snap.Values, rev)
	return snap, nil
}

// parentGateway is the route's parent Gateway of a Gatewright class: the one named by
// parent, else the only one.
func (r liveReader) parentGateway(ctx context.Context, route *gatewayv1.HTTPRoute, parent string) (*gatewayv1.Gateway, error) {
	gateways, err := snapshot.ParentGateways(ctx, r.client, route)
	if err != nil {
		return nil, err
	}
	var candidates []*gatewayv1.Gateway
	for _, gw := range gateways {
		if parent != "" && client.ObjectKeyFromObject(gw) != parentKey(parent, route.Namespace) {
			continue
		}
		if ours, err := r.isGatewright(ctx, gw); err != nil {
			return nil, err
		} else if ours {
			candidates = append(candidates, gw)
		}
	}
	switch {
	case len(candidates) == 1:
		return candidates[0], nil
	case len(candidates) == 0 && parent != "":
		return nil, fmt.Errorf("HTTPRoute %s/%s has no parentRef to a Gatewright Gateway %s", route.Namespace, route.Name, parent)
	case len(candidates) == 0:
		return nil, fmt.Errorf("HTTPRoute %s/%s has no parent Gateway of a Gatewright GatewayClass", route.Namespace, route.Name)
	}
	names := make([]string, len(candidates))
	for i, gw := range candidates {
		names[i] = gw.Namespace + "/" + gw.Name
	}
	return nil, fmt.Errorf("HTTPRoute %s/%s has several Gatewright parents (%v): choose one with --gateway", route.Namespace, route.Name, names)
}

func parentKey(ref, defaultNamespace string) client.ObjectKey {
	if namespace, name, ok := strings.Cut(ref, "/"); ok {
		return client.ObjectKey{Namespace: namespace, Name: name}
	}
	return client.ObjectKey{Namespace: defaultNamespace, Name: ref}
}

func (r liveReader) isGatewright(ctx context.Context, gw *gatewayv1.Gateway) (bool, error) {
	var class gatewayv1.GatewayClass
	err := r.get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, &class)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil && class.Spec.ControllerName == gatewrightv1alpha1.ControllerName, err
}

func (r liveReader) get(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	if err := r.client.Get(ctx, key, obj); err != nil {
		return fmt.Errorf("reading %s %s: %w", r.kindOf(obj), strings.TrimPrefix(key.String(), "/"), err)
	}
	return nil
}

// kindOf names the kind of obj for error messages.
func (r liveReader) kindOf(obj runtime.Object) string {
	gvk, err := apiutil.GVKForObject(obj, r.client.Scheme())
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
}
