package snapshot

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
)

// Listeners judges gw's listeners by the Gateway API rules on a class that serves what
// serves says (Serves), their certificateRefs resolved with the ReferenceGrants of the
// other namespaces they name and SecretCheck.
func (g *Gatherer) Listeners(ctx context.Context, gw *gatewayv1.Gateway, serves listeners.Serves) ([]listeners.Status, error) {
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
	grants, err := g.grantsIn(ctx, gw.Namespace, namespaces)
	if err != nil {
		return nil, err
	}
	certificateRefs, err := attach.ResolveCertificateRefs(gw, serves, grants, g.secretCheck(ctx, gw))
	if err != nil {
		return nil, err
	}
	return listeners.Evaluate(serves, gw.Spec.Listeners, certificateRefs), nil
}

// BackendRefs resolves the route's backendRefs with the ReferenceGrants of the other
// namespaces they name and ServiceExists.
func (g *Gatherer) BackendRefs(ctx context.Context, route routes.Route) (attach.Resolution, error) {
	var namespaces []string
	for _, ref := range routes.AllBackendRefs(route) {
		if ref.Namespace != nil && string(*ref.Namespace) != route.GetNamespace() {
			namespaces = append(namespaces, string(*ref.Namespace))
		}
	}
	grants, err := g.grantsIn(ctx, route.GetNamespace(), namespaces)
	if err != nil {
		return attach.Resolution{}, err
	}
	return attach.ResolveBackendRefs(route, grants, g.serviceExists(ctx))
}

// backendReads are what a pass read of backends and grants, read once however many
// routes name them: a Gateway of thousands of routes names a few Services, each
// thousands of times. Within a pass every route then sees the same of each.
type backendReads struct {
	services map[client.ObjectKey]bool
	grants   map[string][]gatewayv1.ReferenceGrant
}

// grantsIn lists the ReferenceGrants of namespaces other than own, each namespace once:
// no grant is needed within own.
func (g *Gatherer) grantsIn(ctx context.Context, own string, namespaces []string) ([]gatewayv1.ReferenceGrant, error) {
	var grants []gatewayv1.ReferenceGrant
	for _, namespace := range unique(namespaces) {
		if namespace == own {
			continue
		}
		in, read := g.backends.grants[namespace]
		if !read {
			var list gatewayv1.ReferenceGrantList
			if err := g.Reader.List(ctx, &list, client.InNamespace(namespace)); err != nil {
				return nil, err
			}
			if g.backends.grants == nil {
				g.backends.grants = map[string][]gatewayv1.ReferenceGrant{}
			}
			in = list.Items
			g.backends.grants[namespace] = in
		}
		grants = append(grants, in...)
	}
	return grants, nil
}

// serviceExists is ServiceExists, else a read of a Service's metadata through Reader,
// each Service read once a pass; a Service that cannot be read is an error that names it.
func (g *Gatherer) serviceExists(ctx context.Context) attach.ServiceExists {
	read := g.ServiceExists
	if read == nil {
		read = func(namespace, name string) (bool, error) {
			m := &metav1.PartialObjectMetadata{}
			m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
			err := g.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, m)
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			if err != nil {
				return false, fmt.Errorf("reading Service %s/%s (a backendRef): %w", namespace, name, err)
			}
			return true, nil
		}
	}
	return func(namespace, name string) (bool, error) {
		key := client.ObjectKey{Namespace: namespace, Name: name}
		if exists, ok := g.backends.services[key]; ok {
			return exists, nil
		}
		exists, err := read(namespace, name)
		if err != nil {
			return false, err
		}
		if g.backends.services == nil {
			g.backends.services = map[client.ObjectKey]bool{}
		}
		g.backends.services[key] = exists
		return exists, nil
	}
}
