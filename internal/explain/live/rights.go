package live

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/routes"
)

// rightsReader reads with the caller's rights and notes what they do not reach: a
// tenant may not read other namespaces, nor, without the grants docs/security.md
// lists, the provider's objects.
type rightsReader struct {
	client client.Client
	// home is where a cluster-wide list the caller may not make is made instead.
	home string
	// refusals says what a refused read of each kind means.
	refusals func(kind string) refusal
	denied   *explain.DeniedReads
}

// refusal is what a read the caller's rights refuse means.
type refusal int

const (
	// notShown reads what is optional as nothing (an empty list, an object not found):
	// the Gateways and routes a policy reaches, of which explain shows those the caller
	// sees.
	notShown refusal = iota
	// notComputed returns the error: values computed without a policy the caller may not
	// read would be wrong, so the contexts that need it are not computed.
	notComputed
	// standsIn returns the error unnoted to the Gatherer, which stands in for it and
	// says so (snapshot.Rights.Refused): which revision a Gateway runs.
	standsIn
)

// targetReads are the refusals of the reads of whether a target is accepted: every one
// is notShown, as the Gateways and routes the target reaches.
func targetReads(string) refusal { return notShown }

// policyReads are the refusals of the reads of the Gatherer that explains a policy: what
// the policy reaches is notShown, which revision a Gateway runs standsIn, and what
// values are computed from is notComputed.
func policyReads(kind string) refusal {
	switch {
	case kind == "Gateway" || kind == "ListenerSet" || kind == "Namespace" || routes.IsKind(kind):
		return notShown
	case kind == gatewrightv1alpha1.KindRendering || kind == gatewrightv1alpha1.KindGatewayClassBlueprintRevision:
		return standsIn
	}
	return notComputed
}

var _ client.Reader = rightsReader{}

func (r rightsReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := r.client.Get(ctx, key, obj, opts...)
	if !apierrors.IsForbidden(err) {
		return err
	}
	kind := kindOf(r.client, obj)
	meaning := r.refusals(kind)
	if meaning == standsIn {
		return err
	}
	what := kind + " " + strings.TrimPrefix(key.String(), "/")
	if ns, ok := obj.(*corev1.Namespace); ok && meaning == notShown {
		// Listeners select routes by their namespace's labels; the API server gives every
		// namespace this one, which is all a listener selecting by name needs.
		r.denied.AddIf(explain.IfSelectsByLabels, what, "its routes count as labelled "+corev1.LabelMetadataName+"="+key.Name+" only")
		*ns = corev1.Namespace{}
		ns.Name, ns.Labels = key.Name, map[string]string{corev1.LabelMetadataName: key.Name}
		return nil
	}
	r.denied.Add(what, meaning.consequence())
	if meaning == notComputed {
		return err
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: kind}, key.Name)
}

func (r rightsReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	err := r.client.List(ctx, list, opts...)
	if !apierrors.IsForbidden(err) {
		return err
	}
	kind := strings.TrimSuffix(kindOf(r.client, list), "List")
	meaning := r.refusals(kind)
	if meaning == standsIn {
		return err
	}
	var options client.ListOptions
	options.ApplyOptions(opts)
	kinds := plural(kind)
	switch {
	case options.Namespace != "":
		r.denied.Add(kinds+" in namespace "+options.Namespace, meaning.consequence())
	case meaning == notShown && r.home != "":
		// Gateways are listed cluster-wide only for a global policy, which reaches every
		// namespace; routes always, which matter only for a Gateway that takes them from
		// other namespaces.
		scope := explain.Always
		if routes.IsKind(kind) {
			scope = explain.IfTakesOtherNamespaces
		}
		r.denied.AddIf(scope, kinds+" outside namespace "+r.home, meaning.consequence())
		return r.List(ctx, list, append(opts, client.InNamespace(r.home))...)
	default:
		r.denied.Add(kinds+" in all namespaces", meaning.consequence())
	}
	if meaning == notComputed {
		return err
	}
	return nil
}

// consequence says what a refused read means for the explanation.
func (r refusal) consequence() string {
	if r == notShown {
		return "the Gateways and routes there are not shown"
	}
	return "the contexts whose values need it are not computed"
}

// plural is the plural of a kind's name: GatewayClass, GatewayClasses.
func plural(kind string) string {
	if strings.HasSuffix(kind, "s") {
		return kind + "es"
	}
	return kind + "s"
}
