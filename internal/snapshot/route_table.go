package snapshot

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/tlscert"
	"github.com/gatewright/gatewright/internal/translate"
)

// RouteTableReads gathers, with a caller's rights, what a Gateway's route table is
// computed from (ForRouteTable): `gatewright explain request` and the conformance
// harness read the cluster with it. What the caller may not read either has a stand-in
// that cannot change the answer, said in Notes, or is an error that names it: an answer
// computed without a route or a Service the caller cannot see would be wrong.
type RouteTableReads struct {
	Reader client.Reader
	// Notes say what was read in another way than the controller reads it.
	Notes []string
}

// GatewrightGateways lists the Gateways of Gatewright classes: cluster-wide, else in
// namespace when the caller may not list every namespace.
func (r *RouteTableReads) GatewrightGateways(ctx context.Context, namespace string) ([]gatewayv1.Gateway, error) {
	var list gatewayv1.GatewayList
	err := r.Reader.List(ctx, &list)
	if apierrors.IsForbidden(err) && namespace != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("may not list Gateways in every namespace: looked in namespace %s only", namespace))
		err = r.Reader.List(ctx, &list, client.InNamespace(namespace))
	}
	if err != nil {
		return nil, fmt.Errorf("listing Gateways: %w", err)
	}
	classes := map[string]bool{}
	var out []gatewayv1.Gateway
	for _, gw := range list.Items {
		name := string(gw.Spec.GatewayClassName)
		ours, seen := classes[name]
		if !seen {
			class, err := r.class(ctx, name)
			if err != nil {
				return nil, err
			}
			ours = translate.IsGatewrightClass(class)
			classes[name] = ours
		}
		if ours {
			out = append(out, gw)
		}
	}
	return out, nil
}

// Snapshot gathers what gw's route table is computed from.
func (r *RouteTableReads) Snapshot(ctx context.Context, gw *gatewayv1.Gateway) (*translate.Gateway, error) {
	class, err := r.class(ctx, string(gw.Spec.GatewayClassName))
	if err != nil {
		return nil, err
	}
	if !translate.IsGatewrightClass(class) {
		return nil, fmt.Errorf("Gateway %s/%s: its GatewayClass %s is not one of Gatewright's", gw.Namespace, gw.Name, gw.Spec.GatewayClassName)
	}
	judged, err := Listeners(ctx, r.Reader, gw, r.secretCheck(ctx, gw))
	if err != nil {
		return nil, fmt.Errorf("judging the listeners of Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	routes, err := r.candidateRoutes(ctx, gw)
	if err != nil {
		return nil, err
	}
	reader := namespaceStandIn{Reader: r.Reader, gw: gw}
	snap, err := ForRouteTable(ctx, reader, gw, class, routes, judged, r.serviceExists(ctx))
	if err != nil {
		return nil, fmt.Errorf("Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	if snap.RefusedRoutes, err = r.refusedRoutes(ctx, gw, snap.Routes); err != nil {
		return nil, err
	}
	// Which routes past a bound the controller left out is in the Gateway's record: the
	// bounds are its operator's flags, which no reader of the cluster can see.
	snap.CutoffRecorded = true
	if snap.RecordedCutoff, err = apply.RouteCutoff(ctx, r.Reader, gw); err != nil {
		return nil, fmt.Errorf("reading the Rendering of Gateway %s/%s (which routes it leaves out for a bound): %w", gw.Namespace, gw.Name, err)
	}
	return snap, nil
}

// refusedRoutes are the routes among routes that their own templates refused on gw, as
// their records say: the controller leaves them out of gw's table. gw's route records
// are listed cluster-wide, else in each route namespace; one the caller may not read is an
// error that names it, since a refused route would otherwise answer requests it does not.
func (r *RouteTableReads) refusedRoutes(ctx context.Context, gw *gatewayv1.Gateway, routes []gatewayv1.HTTPRoute) (map[types.NamespacedName]string, error) {
	// Route records carry their Gateway's name and namespace as labels: only gw's are listed.
	ofGateway := client.MatchingLabels{gatewayv1.GatewayNameLabelKey: gw.Name, gatewrightv1alpha1.LabelGatewayNamespace: gw.Namespace}
	var all gatewrightv1alpha1.RenderingList
	err := r.Reader.List(ctx, &all, ofGateway)
	if err == nil {
		return apply.RefusedRoutes(all.Items, gw), nil
	}
	if !apierrors.IsForbidden(err) {
		return nil, fmt.Errorf("listing Renderings (whether routes' own templates refused them): %w", err)
	}
	var renderings []gatewrightv1alpha1.Rendering
	seen := map[string]bool{}
	for _, route := range routes {
		if seen[route.Namespace] {
			continue
		}
		seen[route.Namespace] = true
		var list gatewrightv1alpha1.RenderingList
		if err := r.Reader.List(ctx, &list, client.InNamespace(route.Namespace), ofGateway); err != nil {
			return nil, fmt.Errorf("reading the Renderings of namespace %s (whether its routes' own templates refused them): %w", route.Namespace, err)
		}
		renderings = append(renderings, list.Items...)
	}
	return apply.RefusedRoutes(renderings, gw), nil
}

func (r *RouteTableReads) class(ctx context.Context, name string) (*gatewayv1.GatewayClass, error) {
	class := &gatewayv1.GatewayClass{}
	if err := r.Reader.Get(ctx, client.ObjectKey{Name: name}, class); apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("reading GatewayClass %s: %w", name, err)
	}
	return class, nil
}

// candidateRoutes are the HTTPRoutes that may attach to gw: every one, or, when the
// caller may not list them cluster-wide and gw's listeners take routes of their own
// namespace only, those of gw's namespace.
func (r *RouteTableReads) candidateRoutes(ctx context.Context, gw *gatewayv1.Gateway) ([]gatewayv1.HTTPRoute, error) {
	var list gatewayv1.HTTPRouteList
	err := r.Reader.List(ctx, &list)
	if apierrors.IsForbidden(err) && attach.SameNamespaceOnly(gw) {
		err = r.Reader.List(ctx, &list, client.InNamespace(gw.Namespace))
	}
	if err != nil {
		return nil, fmt.Errorf("listing HTTPRoutes (routes of other namespaces may attach to Gateway %s/%s): %w", gw.Namespace, gw.Name, err)
	}
	return list.Items, nil
}

// serviceExists reads a Service's metadata; a Service the caller may not read is an
// error that names it.
func (r *RouteTableReads) serviceExists(ctx context.Context) func(namespace, name string) (bool, error) {
	return func(namespace, name string) (bool, error) {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
		err := r.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, m)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("reading Service %s/%s (a backendRef): %w", namespace, name, err)
		}
		return true, nil
	}
}

// secretCheck judges a certificate Secret as the controller does. A caller who may not
// read Secrets (most may not) gets the verdict the controller wrote in gw's listener
// status instead: a listener whose ResolvedRefs is False for InvalidCertificateRef
// serves nothing.
func (r *RouteTableReads) secretCheck(ctx context.Context, gw *gatewayv1.Gateway) func(namespace, name string) (string, error) {
	return func(namespace, name string) (string, error) {
		secret := &corev1.Secret{}
		err := r.Reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret)
		switch {
		case apierrors.IsNotFound(err):
			return "does not exist", nil
		case apierrors.IsForbidden(err):
			r.Notes = append(r.Notes, fmt.Sprintf("may not read Secret %s/%s: the listeners that use it are judged by Gateway %s/%s's status", namespace, name, gw.Namespace, gw.Name))
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
			ns := gw.Namespace
			if ref.Namespace != nil {
				ns = string(*ref.Namespace)
			}
			if ns != namespace || string(ref.Name) != name {
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

// namespaceStandIn reads as its Reader does, but a Namespace the caller may not read
// has no labels but its name's, when no listener of gw selects routes by namespace
// labels: they then decide nothing.
type namespaceStandIn struct {
	client.Reader
	gw *gatewayv1.Gateway
}

func (n namespaceStandIn) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := n.Reader.Get(ctx, key, obj, opts...)
	ns, isNamespace := obj.(*corev1.Namespace)
	if !isNamespace || !apierrors.IsForbidden(err) || attach.SelectsByLabels(n.gw) {
		return err
	}
	*ns = corev1.Namespace{}
	ns.Name, ns.Labels = key.Name, map[string]string{corev1.LabelMetadataName: key.Name}
	return nil
}
