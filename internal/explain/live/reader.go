package live

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
	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
)

// Reader reads from the cluster what the values of one Gateway, or of a route on it,
// are computed from, as the controller reads it, and where a policy lands.
type Reader struct {
	Client              client.Client
	ControllerNamespace string
}

// Gateway explains the values of the Gateway namespace/name. When the caller may not
// read what they are computed from, it explains them from the Gateway's Rendering, and
// says so in the record source, which is nil otherwise.
func (r Reader) Gateway(ctx context.Context, namespace, name string) (*explain.ValuesExplanation, *explain.RecordSource, error) {
	exp, err := r.valuesOfGateway(ctx, namespace, name)
	if apierrors.IsForbidden(err) {
		return r.recordedGateway(ctx, namespace, name, err)
	}
	return exp, nil, err
}

// Route explains the values of the route of kind (HTTPRoute, GRPCRoute, ...)
// namespace/name on its parent Gateway parent ([NAMESPACE/]NAME; empty for its only
// Gatewright parent). When the caller may not read what they are computed from, it
// explains them from the route's Rendering, and says so in the record source, which is
// nil otherwise.
func (r Reader) Route(ctx context.Context, kind, namespace, name, parent string) (*explain.ValuesExplanation, *explain.RecordSource, error) {
	exp, err := r.valuesOfRoute(ctx, kind, namespace, name, parent)
	if apierrors.IsForbidden(err) {
		return r.recordedRoute(ctx, kind, namespace, name, parent, err)
	}
	return exp, nil, err
}

func (r Reader) valuesOfGateway(ctx context.Context, namespace, name string) (*explain.ValuesExplanation, error) {
	var gw gatewayv1.Gateway
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &gw); err != nil {
		return nil, err
	}
	snap, err := r.snapshot(ctx, &gw, nil)
	if err != nil {
		return nil, err
	}
	return explain.NewValuesExplanation(&gw, nil, snap, snap.Valuing(&render.Cache{}, nil))
}

func (r Reader) valuesOfRoute(ctx context.Context, kind, namespace, name, parent string) (*explain.ValuesExplanation, error) {
	route := routes.New(kind)
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, route); err != nil {
		return nil, err
	}
	gw, err := r.parentGateway(ctx, route, parent)
	if err != nil {
		return nil, err
	}
	snap, err := r.snapshot(ctx, gw, route)
	if err != nil {
		return nil, err
	}
	return explain.NewValuesExplanation(gw, route, snap, snap.Valuing(&render.Cache{}, route))
}

// snapshot reads what the values of gw, or of route on it, are computed from, as the
// controller does: the class, the blueprint revision gw runs and the policies of the
// controller, Gateway and route namespaces. A read the caller may not make is an error
// (the caller then gets the values the Gateway's or route's record holds): values
// computed without a policy, or with another revision than the one the Gateway runs,
// would be wrong.
func (r Reader) snapshot(ctx context.Context, gw *gatewayv1.Gateway, route routes.Route) (*translate.Gateway, error) {
	var class gatewayv1.GatewayClass
	if err := r.get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, &class); err != nil {
		return nil, err
	}
	if !translate.IsGatewrightClass(&class) {
		return nil, fmt.Errorf("GatewayClass %s: controllerName is %s, not %s", class.Name, class.Spec.ControllerName, gatewrightv1alpha1.ControllerName)
	}
	g := r.gatherer()
	if route != nil {
		return g.Route(ctx, route, gw, &class)
	}
	return g.Gateway(ctx, gw, &class, snapshot.ValuesOnly())
}

// gatherer gathers through the API server with the caller's rights, where a read they
// refuse is an error that names it.
func (r Reader) gatherer() *snapshot.Gatherer {
	return &snapshot.Gatherer{Reader: r.Client, ControllerNamespace: r.ControllerNamespace, Rights: &snapshot.Rights{}}
}

// parentGateway is the route's parent Gateway of a Gatewright class: the one named by
// parent, else the only one.
func (r Reader) parentGateway(ctx context.Context, route routes.Route, parent string) (*gatewayv1.Gateway, error) {
	gateways, err := r.gatherer().ParentGateways(ctx, route)
	if err != nil {
		return nil, err
	}
	var candidates []*gatewayv1.Gateway
	for _, gw := range gateways {
		if parent != "" && client.ObjectKeyFromObject(gw) != explain.ParentKey(parent, route.GetNamespace()) {
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
		return nil, fmt.Errorf("%s has no parentRef to a Gatewright Gateway %s", routes.KeyOf(route), parent)
	case len(candidates) == 0:
		return nil, fmt.Errorf("%s has no parent Gateway of a Gatewright GatewayClass", routes.KeyOf(route))
	}
	names := make([]string, len(candidates))
	for i, gw := range candidates {
		names[i] = gw.Namespace + "/" + gw.Name
	}
	return nil, fmt.Errorf("%s has several Gatewright parents (%v): choose one with --gateway", routes.KeyOf(route), names)
}

func (r Reader) isGatewright(ctx context.Context, gw *gatewayv1.Gateway) (bool, error) {
	var class gatewayv1.GatewayClass
	err := r.get(ctx, client.ObjectKey{Name: string(gw.Spec.GatewayClassName)}, &class)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil && translate.IsGatewrightClass(&class), err
}

func (r Reader) get(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	if err := r.Client.Get(ctx, key, obj); err != nil {
		return fmt.Errorf("reading %s %s: %w", kindOf(r.Client, obj), strings.TrimPrefix(key.String(), "/"), err)
	}
	return nil
}

// kindOf names the kind of obj, by the scheme of k8s, for messages.
func kindOf(k8s client.Client, obj runtime.Object) string {
	gvk, err := apiutil.GVKForObject(obj, k8s.Scheme())
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return gvk.Kind
}
