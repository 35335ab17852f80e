package snapshot

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/translate"
)

// Blueprint returns the GatewayClassBlueprint that class's spec.parametersRef names, its
// live spec.
func (g *Gatherer) Blueprint(ctx context.Context, class *gatewayv1.GatewayClass) (*gatewrightv1alpha1.GatewayClassBlueprint, error) {
	name, ok := translate.BlueprintRef(class)
	if !ok {
		return nil, &translate.InvalidParametersError{Message: "spec.parametersRef must name a GatewayClassBlueprint (group gatewright.dev)"}
	}
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := g.Reader.Get(ctx, client.ObjectKey{Name: name}, bp); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &translate.InvalidParametersError{Message: fmt.Sprintf("GatewayClassBlueprint %s not found", name)}
		}
		return nil, err
	}
	return bp, nil
}
