package snapshot

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
)

// Listeners judges gw's listeners by the Gateway API rules, their certificateRefs
// resolved with the ReferenceGrants of the other namespaces they name and check.
func Listeners(ctx context.Context, r client.Reader, gw *gatewayv1.Gateway, check attach.SecretCheck) ([]listeners.Status, error) {
	var namespaces []string
	for i := range gw.Spec.Listeners {
		if tls := gw.Spec.Listeners[i].TLS; tls != nil {
			for _, ref := range tls.CertificateRefs {
				if ref.Namespace != nil {
					namespaces = append(namespaces, string(*ref.Namespace))
				}
			}
		}
	}
	grants, err := grantsIn(ctx, r, gw.Namespace, namespaces)
	if err != nil {
		return nil, err
	}
	certificateRefs, err := attach.ResolveCertificateRefs(gw, grants, check)
	if err != nil {
		return nil, err
	}
	return listeners.Evaluate(gw.Spec.Listeners, certificateRefs), nil
}

// BackendRefs resolves the route's backendRefs with the ReferenceGrants of the other
// namespaces they name and exists.
func BackendRefs(ctx context.Context, r client.Reader, route *gatewayv1.HTTPRoute, exists attach.ServiceExists) (attach.Resolution, error) {
	var namespaces []string
	for _, rule := range route.Spec.Rules {
		for _, ref := range rule.BackendRefs {
			key, _ := attach.BackendService(route, ref.BackendObjectReference)
			namespaces = append(namespaces, key.Namespace)
		}
	}
	grants, err := grantsIn(ctx, r, route.Namespace, namespaces)
	if err != nil {
		return attach.Resolution{}, err
	}
	return attach.ResolveBackendRefs(route, grants, exists)
}

// grantsIn lists the ReferenceGrants of namespaces other than own, each namespace once:
// no grant is needed within own.
func grantsIn(ctx context.Context, r client.Reader, own string, namespaces []string) ([]gatewayv1.ReferenceGrant, error) {
	var grants []gatewayv1.ReferenceGrant
	for _, namespace := range unique(namespaces) {
		if namespace == own {
			continue
		}
		var list gatewayv1.ReferenceGrantList
		if err := r.List(ctx, &list, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		grants = append(grants, list.Items...)
	}
	return grants, nil
}
