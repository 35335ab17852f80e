package attach

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
)

// SecretCheck says why the Secret namespace/name cannot serve as a certificate ("does
// not exist", "has no tls.key", ...), or "" when it can.
type SecretCheck func(namespace, name string) (why string, err error)

// ResolveCertificateRefs checks the certificateRefs of every listener of gw that
// terminates TLS on a class that serves what serves says (Serves.TerminatesTLS; the
// others' are never read), by listener name, in spec order. Each goes through three checks in turn and takes the reason of
// the first it fails: one in another namespace needs a ReferenceGrant there
// (RefNotPermitted), checked first, as the specification asks, so that a Gateway learns
// nothing of a namespace it may not refer to and check never sees such a Secret; it must
// name a core Secret (InvalidCertificateRef); check must find that Secret usable
// (InvalidCertificateRef). grants may hold the ReferenceGrants of any namespaces; only
// those of a reference's namespace count.
func ResolveCertificateRefs(gw *gatewayv1.Gateway, serves listeners.Serves, grants []gatewayv1.ReferenceGrant, check SecretCheck) (map[gatewayv1.SectionName][]listeners.CertificateRef, error) {
	return resolveCertificateRefs(Referrer{Group: gatewayv1.GroupName, Kind: "Gateway", Namespace: gw.Namespace}, gw.Spec.Listeners, serves, grants, check)
}

// ResolveListenerSetCertificateRefs is ResolveCertificateRefs for the listeners of ls:
// they refer from ls's namespace, and a ReferenceGrant must name kind ListenerSet; one
// that lets its parent Gateway refer lets it refer to nothing.
func ResolveListenerSetCertificateRefs(ls *gatewayv1.ListenerSet, serves listeners.Serves, grants []gatewayv1.ReferenceGrant, check SecretCheck) (map[gatewayv1.SectionName][]listeners.CertificateRef, error) {
	return resolveCertificateRefs(Referrer{Group: gatewayv1.GroupName, Kind: "ListenerSet", Namespace: ls.Namespace}, listeners.EntriesAsListeners(ls.Spec.Listeners), serves, grants, check)
}

func resolveCertificateRefs(from Referrer, ls []gatewayv1.Listener, serves listeners.Serves, grants []gatewayv1.ReferenceGrant, check SecretCheck) (map[gatewayv1.SectionName][]listeners.CertificateRef, error) {
	out := map[gatewayv1.SectionName][]listeners.CertificateRef{}
	for i := range ls {
		l := &ls[i]
		if !serves.TerminatesTLS(l) {
			continue
		}
		for _, ref := range l.TLS.CertificateRefs {
			resolved, err := resolveCertificate(from, ref, grants, check)
			if err != nil {
				return nil, err
			}
			out[l.Name] = append(out[l.Name], resolved)
		}
	}
	return out, nil
}

// CertificateSecrets are the Secrets the certificateRefs of gw's TLS-terminating
// listeners name, whether or not the Gateway may refer to them: of those its class may
// serve, whatever it serves, since the indexes and readers that ask know no class.
func CertificateSecrets(gw *gatewayv1.Gateway) []types.NamespacedName {
	return certificateSecrets(gw.Namespace, gw.Spec.Listeners)
}

// ListenerSetCertificateSecrets is CertificateSecrets for the listeners of ls.
func ListenerSetCertificateSecrets(ls *gatewayv1.ListenerSet) []types.NamespacedName {
	return certificateSecrets(ls.Namespace, listeners.EntriesAsListeners(ls.Spec.Listeners))
}

// certificateSecrets is CertificateSecrets for ls, listeners held in namespace.
func certificateSecrets(namespace string, ls []gatewayv1.Listener) []types.NamespacedName {
	var out []types.NamespacedName
	for i := range ls {
		l := &ls[i]
		if !listeners.MayTerminateTLS(l) {
			continue
		}
		for _, ref := range l.TLS.CertificateRefs {
			if c := certificateIn(namespace, ref); isSecret(c) {
				out = append(out, types.NamespacedName{Namespace: c.Namespace, Name: c.Name})
			}
		}
	}
	return out
}

func isSecret(c listeners.CertificateRef) bool { return c.Group == "" && c.Kind == "Secret" }

// CertificateRefNamespace is the namespace of what a certificateRef of gw names: gw's own
// unless the reference says otherwise.
func CertificateRefNamespace(gw *gatewayv1.Gateway, ref gatewayv1.SecretObjectReference) string {
	if ref.Namespace != nil {
		return string(*ref.Namespace)
	}
	return gw.Namespace
}

// certificateOf is what ref names: a core Secret in gw's namespace unless it says otherwise.
func certificateOf(gw *gatewayv1.Gateway, ref gatewayv1.SecretObjectReference) listeners.CertificateRef {
	return certificateIn(gw.Namespace, ref)
}

// certificateIn is what ref, held in namespace, names.
func certificateIn(namespace string, ref gatewayv1.SecretObjectReference) listeners.CertificateRef {
	c := listeners.CertificateRef{Kind: "Secret", Namespace: namespace, Name: string(ref.Name)}
	if ref.Namespace != nil {
		c.Namespace = string(*ref.Namespace)
	}
	if ref.Group != nil {
		c.Group = string(*ref.Group)
	}
	if ref.Kind != nil {
		c.Kind = string(*ref.Kind)
	}
	return c
}

func resolveCertificate(from Referrer, ref gatewayv1.SecretObjectReference, grants []gatewayv1.ReferenceGrant, check SecretCheck) (listeners.CertificateRef, error) {
	c := certificateIn(from.Namespace, ref)
	fail := func(reason gatewayv1.ListenerConditionReason, why string) (listeners.CertificateRef, error) {
		c.Reason = reason
		c.Message = fmt.Sprintf("certificateRef %s/%s %s", c.Namespace, c.Name, why)
		return c, nil
	}
	if !ReferencePermitted(grants, from, Referent{Group: c.Group, Kind: c.Kind, Namespace: c.Namespace, Name: c.Name}) {
		return fail(gatewayv1.ListenerReasonRefNotPermitted, fmt.Sprintf("is in another namespace, and no ReferenceGrant in %s lets %ss of %s refer to it", c.Namespace, from.Kind, from.Namespace))
	}
	if !isSecret(c) {
		return fail(gatewayv1.ListenerReasonInvalidCertificateRef, fmt.Sprintf("is a %s, not a core Secret", kindDotGroup(c.Kind, c.Group)))
	}
	why, err := check(c.Namespace, c.Name)
	if err != nil {
		return listeners.CertificateRef{}, err
	}
	if why != "" {
		return fail(gatewayv1.ListenerReasonInvalidCertificateRef, "names a Secret that "+why)
	}
	c.Reason = gatewayv1.ListenerReasonResolvedRefs
	return c, nil
}

// kindDotGroup is kind.group, or kind for the core group.
func kindDotGroup(kind, group string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}
