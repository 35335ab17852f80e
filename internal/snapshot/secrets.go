package snapshot

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/tlscert"
)

// secretCheck is SecretCheck, else a read of the Secret through Reader judged as the
// controller judges it. A caller who may not read Secrets (most may not) gets the
// verdict the controller wrote in gw's listener status instead: a listener whose
// ResolvedRefs is False for InvalidCertificateRef serves nothing.
func (g *Gatherer) secretCheck(ctx context.Context, gw *gatewayv1.Gateway) attach.SecretCheck {
	if g.SecretCheck != nil {
		return g.SecretCheck
	}
	return func(namespace, name string) (string, error) {
		secret := &corev1.Secret{}
		err := g.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret)
		switch {
		case apierrors.IsNotFound(err):
			return "does not exist", nil
		case apierrors.IsForbidden(err) && g.Rights != nil:
			g.note("may not read Secret %s/%s: the listeners that use it are judged by Gateway %s/%s's status", namespace, name, gw.Namespace, gw.Name)
			return statusVerdict(gw, namespace, name), nil
		case err != nil:
			return "", fmt.Errorf("reading Secret %s/%s: %w", namespace, name, err)
		}
		if err := tlscert.Check(secret); err != nil {
			return err.Error(), nil
		}
		return "", nil
	}
}

// statusVerdict is why the Secret namespace/name does not serve, as gw's status says of
// the listeners that name it, or "".
func statusVerdict(gw *gatewayv1.Gateway, namespace, name string) string {
	for _, l := range gw.Spec.Listeners {
		if l.TLS == nil {
			continue
		}
		for _, ref := range l.TLS.CertificateRefs {
			if attach.CertificateRefNamespace(gw, ref) != namespace || string(ref.Name) != name {
				continue
			}
			for _, s := range gw.Status.Listeners {
				if c := meta.FindStatusCondition(s.Conditions, string(gatewayv1.ListenerConditionResolvedRefs)); s.Name == l.Name && c != nil &&
					c.Status == "False" && c.Reason == string(gatewayv1.ListenerReasonInvalidCertificateRef) {
					return "is refused in the Gateway's status: " + c.Message
				}
			}
		}
	}
	return ""
}
