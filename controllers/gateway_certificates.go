package controllers

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
)

// indexGatewaySecret indexes Gateways by the Secrets (namespace/name) their listeners'
// certificateRefs name.
const indexGatewaySecret = "spec.listeners.tls.certificateRefs"

func gatewaySecrets(obj client.Object) []string {
	var keys []string
	for _, key := range attach.CertificateSecrets(obj.(*gatewayv1.Gateway)) {
		keys = append(keys, key.String())
	}
	return keys
}

// resolve applies attach's rules to the certificateRefs of gw's listeners, with the
// ReferenceGrants (read through reader) of the other namespaces they name.
func (c *certificateSecrets) resolve(ctx context.Context, reader client.Reader, gw *gatewayv1.Gateway) (map[gatewayv1.SectionName][]listeners.CertificateRef, error) {
	var grants []gatewayv1.ReferenceGrant
	listed := map[string]bool{gw.Namespace: true} // no grant needed there
	for i := range gw.Spec.Listeners {
		tls := gw.Spec.Listeners[i].TLS
		if tls == nil {
			continue
		}
		for _, ref := range tls.CertificateRefs {
			if ref.Namespace == nil || listed[string(*ref.Namespace)] {
				continue
			}
			listed[string(*ref.Namespace)] = true
			var list gatewayv1.ReferenceGrantList
			if err := reader.List(ctx, &list, client.InNamespace(string(*ref.Namespace))); err != nil {
				return nil, err
			}
			grants = append(grants, list.Items...)
		}
	}
	return attach.ResolveCertificateRefs(gw, grants, c.check(ctx))
}

// gatewaysOfSecret lists the Gateways whose certificateRefs name the Secret.
func (r *GatewayReconciler) gatewaysOfSecret(ctx context.Context, secret *metav1.PartialObjectMetadata) []reconcile.Request {
	return requestsFor(r.gatewayNames(ctx, client.MatchingFields{indexGatewaySecret: secret.Namespace + "/" + secret.Name}))
}

// secretChanged passes the Secret events that may change a verdict: a Secret that comes,
// goes, or gets a new resourceVersion (not a resync).
var secretChanged = predicate.TypedFuncs[*metav1.PartialObjectMetadata]{
	UpdateFunc: func(e event.TypedUpdateEvent[*metav1.PartialObjectMetadata]) bool {
		return e.ObjectOld.ResourceVersion != e.ObjectNew.ResourceVersion
	},
	GenericFunc: func(event.TypedGenericEvent[*metav1.PartialObjectMetadata]) bool { return false },
}
