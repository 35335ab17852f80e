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
