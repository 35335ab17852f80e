package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/translate"
)

// getClass returns the GatewayClass name, or nil when there is none.
func getClass(ctx context.Context, c client.Reader, name string) (*gatewayv1.GatewayClass, error) {
	class := &gatewayv1.GatewayClass{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, class); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return class, nil
}

// classesUsing lists the names of Gatewright's GatewayClasses that use blueprint.
func classesUsing(ctx context.Context, c client.Reader, blueprint string) ([]types.NamespacedName, error) {
	var classes gatewayv1.GatewayClassList
	if err := c.List(ctx, &classes); err != nil {
		return nil, fmt.Errorf("listing the GatewayClasses of GatewayClassBlueprint %s: %w", blueprint, err)
	}
	var out []types.NamespacedName
	for _, class := range classes.Items {
		if ref := class.Spec.ParametersRef; translate.IsGatewrightClass(&class) && ref != nil && ref.Name == blueprint {
			out = append(out, types.NamespacedName{Name: class.Name})
		}
	}
	return out, nil
}
