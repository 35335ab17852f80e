package snapshot

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
)

// reading says, with a caller's rights, what was being read when err came: the caller
// may lack more than one right. The controller's own errors are as they came.
func (g *Gatherer) reading(err error, format string, args ...any) error {
	if g.Rights == nil {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// note says what stood in for a read the caller may not make.
func (g *Gatherer) note(format string, args ...any) {
	g.Rights.Notes = append(g.Rights.Notes, fmt.Sprintf(format, args...))
}

// GatewrightGateways lists the Gateways of Gatewright classes: cluster-wide, else, with
// a caller's rights, in namespace when the caller may not list every namespace.
func (g *Gatherer) GatewrightGateways(ctx context.Context, namespace string) ([]gatewayv1.Gateway, error) {
	var list gatewayv1.GatewayList
	err := g.Reader.List(ctx, &list)
	if apierrors.IsForbidden(err) && namespace != "" && g.Rights != nil {
		g.note("may not list Gateways in every namespace: looked in namespace %s only", namespace)
		err = g.Reader.List(ctx, &list, client.InNamespace(namespace))
	}
	if err != nil {
		return nil, fmt.Errorf("listing Gateways: %w", err)
	}
	classes := map[string]bool{}
	var out []gatewayv1.Gateway
	for _, gw := range list.Items {
		name := string(gw.Spec.GatewayClassName)
		ours, seen := classes[name]
		if !seen {
			class, err := g.class(ctx, name)
			if err != nil {
				return nil, err
			}
			ours = translate.IsGatewrightClass(class)
			classes[name] = ours
		}
		if ours {
			out = append(out, gw)
		}
	}
	return out, nil
}

// GatewrightClass is gw's GatewayClass, which must be one of Gatewright's.
func (g *Gatherer) GatewrightClass(ctx context.Context, gw *gatewayv1.Gateway) (*gatewayv1.GatewayClass, error) {
	class, err := g.class(ctx, string(gw.Spec.GatewayClassName))
	if err != nil {
		return nil, err
	}
	if !translate.IsGatewrightClass(class) {
		return nil, fmt.Errorf("Gateway %s/%s: its GatewayClass %s is not one of Gatewright's", gw.Namespace, gw.Name, gw.Spec.GatewayClassName)
	}
	return class, nil
}

// class reads the GatewayClass name; nil when there is none.
func (g *Gatherer) class(ctx context.Context, name string) (*gatewayv1.GatewayClass, error) {
	class := &gatewayv1.GatewayClass{}
	if err := g.Reader.Get(ctx, client.ObjectKey{Name: name}, class); apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("reading GatewayClass %s: %w", name, err)
	}
	return class, nil
}

// candidateRoutes are the HTTPRoutes that may attach to gw: every one, or, when a
// caller may not list them cluster-wide and gw's listeners take routes of their own
// namespace only, those of gw's namespace.
func (g *Gatherer) candidateRoutes(ctx context.Context, gw *gatewayv1.Gateway) ([]*gatewayv1.HTTPRoute, error) {
	var list gatewayv1.HTTPRouteList
	err := g.Reader.List(ctx, &list)
	if apierrors.IsForbidden(err) && g.Rights != nil && attach.SameNamespaceOnly(gw) {
		err = g.Reader.List(ctx, &list, client.InNamespace(gw.Namespace))
	}
	if err != nil {
		return nil, fmt.Errorf("listing HTTPRoutes (routes of other namespaces may attach to Gateway %s/%s): %w", gw.Namespace, gw.Name, err)
	}
	return routes.HTTPRoutes(&list), nil
}

// routeNamespaceLabels are the labels of a namespace of routes that may attach to gw.
// With a caller's rights, a Namespace the caller may not read has no labels but its
// name's when no listener of gw selects routes by namespace labels: they then decide
// nothing.
func (g *Gatherer) routeNamespaceLabels(ctx context.Context, gw *gatewayv1.Gateway, name string) (map[string]string, error) {
	labels, err := g.NamespaceLabels(ctx, name)
	if !apierrors.IsForbidden(err) || g.Rights == nil || attach.SelectsByLabels(gw) {
		return labels, err
	}
	return map[string]string{corev1.LabelMetadataName: name}, nil
}
