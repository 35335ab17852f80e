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

// Blueprint returns the GatewayClassBlueprint that class's spec.parametersRef names.
func Blueprint(ctx context.Context, r client.Reader, class *gatewayv1.GatewayClass) (*gatewrightv1alpha1.GatewayClassBlueprint, error) {
	ref := class.Spec.ParametersRef
	if ref == nil || string(ref.Group) != gatewrightv1alpha1.GroupVersion.Group || string(ref.Kind) != gatewrightv1alpha1.KindGatewayClassBlueprint {
		return nil, &translate.InvalidParametersError{Message: "spec.parametersRef must name a GatewayClassBlueprint (group gatewright.dev)"}
	}
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{}
	if err := r.Get(ctx, client.ObjectKey{Name: ref.Name}, bp); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &translate.InvalidParametersError{Message: fmt.Sprintf("GatewayClassBlueprint %s not found", ref.Name)}
		}
		return nil, err
	}
	return bp, nil
}
