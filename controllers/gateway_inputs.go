package controllers

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/values"
)

// gatewayInputs is everything a Gateway's render reads.
type gatewayInputs struct {
	class  *gatewayv1.GatewayClass
	values values.Inputs
	// routes are the HTTPRoutes attached to at least one listener, by namespace/name;
	// attached maps each listener to the number of routes on it.
	routes   []gatewayv1.HTTPRoute
	attached map[gatewayv1.SectionName]int32
}

// loadInputs reads the blueprint, the policies that may apply and the routes.
func (r *GatewayReconciler) loadInputs(ctx context.Context, gw *gatewayv1.Gateway, class *gatewayv1.GatewayClass) (*gatewayInputs, error) {
	valueInputs, err := loadValueInputs(ctx, r.Client, r.ControllerNamespace, class, gw.Namespace)
	if err != nil {
		return nil, err
	}
	in := &gatewayInputs{class: class, values: valueInputs}
	in.routes, in.attached, err = attachedRoutes(ctx, r.Client, gw)
	return in, err
}

// loadValueInputs reads the blueprint of class and the policies that may apply to the
// Gateways of the given namespaces (and routes in them): those of the controller
// namespace and of each namespace.
func loadValueInputs(ctx context.Context, c client.Reader, controllerNamespace string, class *gatewayv1.GatewayClass, namespaces ...string) (values.Inputs, error) {
	bp, err := blueprintOf(ctx, c, class)
	if err != nil {
		return values.Inputs{}, err
	}
	in := values.Inputs{ControllerNamespace: controllerNamespace, Blueprint: bp}
	for _, namespace := range uniqueNamespaces(append([]string{controllerNamespace}, namespaces...)...) {
		var classConfigs gatewrightv1alpha1.GatewayClassConfigList
		if err := c.List(ctx, &classConfigs, client.InNamespace(namespace)); err != nil {
			return values.Inputs{}, err
		}
		in.GatewayClassConfigs = append(in.GatewayClassConfigs, classConfigs.Items...)
		var configs gatewrightv1alpha1.GatewayConfigList
		if err := c.List(ctx, &configs, client.InNamespace(namespace)); err != nil {
			return values.Inputs{}, err
		}
		in.GatewayConfigs = append(in.GatewayConfigs, configs.Items...)
	}
	return in, nil
}

// attachedRoutes lists the HTTPRoutes attached to gw by the Gateway API rules.
func attachedRoutes(ctx context.Context, c client.Reader, gw *gatewayv1.Gateway) ([]gatewayv1.HTTPRoute, map[gatewayv1.SectionName]int32, error) {
	var routes gatewayv1.HTTPRouteList
	if err := c.List(ctx, &routes); err != nil {
		return nil, nil, err
	}
	attached := map[gatewayv1.SectionName]int32{}
	var out []gatewayv1.HTTPRoute
	namespaceLabels := map[string]map[string]string{}
	for i := range routes.Items {
		route := &routes.Items[i]
		if len(attach.ParentRefsTo(route, gw)) == 0 {
			continue
		}
		labels, ok := namespaceLabels[route.Namespace]
		if !ok {
			var err error
			if labels, err = labelsOfNamespace(ctx, c, route.Namespace); err != nil {
				return nil, nil, err
			}
			namespaceLabels[route.Namespace] = labels
		}
		taken := attach.Listeners(gw, route, labels)
		for _, l := range taken {
			attached[l]++
		}
		if len(taken) > 0 {
			out = append(out, *route)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name
	})
	return out, attached, nil
}

func labelsOfNamespace(ctx context.Context, c client.Reader, name string) (map[string]string, error) {
	var ns corev1.Namespace
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &ns); client.IgnoreNotFound(err) != nil {
		return nil, err
	}
	return ns.Labels, nil
}

func uniqueNamespaces(namespaces ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, ns := range namespaces {
		if !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	return out
}
