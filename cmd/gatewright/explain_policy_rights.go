package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/attach"
)

// rightsReader reads with the caller's rights and notes what they do not reach: a
// tenant may not read other namespaces, nor, without the grants docs/security.md
// lists, the provider's objects. A lenient one reads what it may not as nothing (an
// empty list, an object not found), for what is optional: the Gateways and routes a
// policy reaches, of which explain then shows those the caller sees. A strict one
// returns the error: values computed without a policy the caller may not read would
// be wrong, so the contexts that need it are not computed.
type rightsReader struct {
	client client.Client
	// home is where a cluster-wide list the caller may not make is made instead.
	home    string
	lenient bool
	denied  *deniedReads
}

var _ client.Reader = rightsReader{}

func (r rightsReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := r.client.Get(ctx, key, obj, opts...)
	if !apierrors.IsForbidden(err) {
		return err
	}
	kind := liveReader{client: r.client}.kindOf(obj)
	what := kind + " " + strings.TrimPrefix(key.String(), "/")
	if ns, ok := obj.(*corev1.Namespace); ok && r.lenient {
		// Listeners select routes by their namespace's labels; the API server gives every
		// namespace this one, which is all a listener selecting by name needs.
		r.denied.addIf(ifSelectsByLabels, what, "its routes count as labelled "+corev1.LabelMetadataName+"="+key.Name+" only")
		*ns = corev1.Namespace{}
		ns.Name, ns.Labels = key.Name, map[string]string{corev1.LabelMetadataName: key.Name}
		return nil
	}
	r.denied.add(what, r.consequence())
	if !r.lenient {
		return err
	}
	return apierrors.NewNotFound(schema.GroupResource{Resource: kind}, key.Name)
}

func (r rightsReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	err := r.client.List(ctx, list, opts...)
	if !apierrors.IsForbidden(err) {
		return err
	}
	var options client.ListOptions
	options.ApplyOptions(opts)
	kind := strings.TrimSuffix(liveReader{client: r.client}.kindOf(list), "List") + "s"
	switch {
	case options.Namespace != "":
		r.denied.add(kind+" in namespace "+options.Namespace, r.consequence())
	case r.lenient && r.home != "":
		// Gateways are listed cluster-wide only for a global policy, which reaches every
		// namespace; routes always, which matter only for a Gateway that takes them from
		// other namespaces.
		scope := always
		if _, routes := list.(*gatewayv1.HTTPRouteList); routes {
			scope = ifTakesOtherNamespaces
		}
		r.denied.addIf(scope, kind+" outside namespace "+r.home, r.consequence())
		return r.List(ctx, list, append(opts, client.InNamespace(r.home))...)
	default:
		r.denied.add(kind+" in all namespaces", r.consequence())
	}
	if !r.lenient {
		return err
	}
	return nil
}

// deniedReads are the reads the caller's rights refused, each once, in order, with when
// the explanation depends on them.
type deniedReads struct {
	lines  []string
	scopes []denialScope
	seen   map[string]bool
}

// denialScope says when an explanation depends on a refused read.
type denialScope int

const (
	always denialScope = iota
	// ifTakesOtherNamespaces: when a Gateway reached takes routes from other namespaces.
	ifTakesOtherNamespaces
	// ifSelectsByLabels: when a Gateway reached selects routes by namespace labels.
	ifSelectsByLabels
)

// needed are the refused reads an explanation over the Gateways reached depends on.
func (d *deniedReads) needed(reached []*gatewayv1.Gateway) []string {
	var out []string
	for i, line := range d.lines {
		switch d.scopes[i] {
		case ifTakesOtherNamespaces:
			if !slices.ContainsFunc(reached, func(gw *gatewayv1.Gateway) bool { return !attach.SameNamespaceOnly(gw) }) {
				continue
			}
		case ifSelectsByLabels:
			if !slices.ContainsFunc(reached, attach.SelectsByLabels) {
				continue
			}
		}
		out = append(out, line)
	}
	return out
}

// consequence says what a refused read means for the explanation.
func (r rightsReader) consequence() string {
	if r.lenient {
		return "the Gateways and routes there are not shown"
	}
	return "the contexts whose values need it are not computed"
}

func (d *deniedReads) add(what, consequence string) { d.addIf(always, what, consequence) }

func (d *deniedReads) addIf(scope denialScope, what, consequence string) {
	line := "cannot read " + what + " (forbidden): " + consequence
	if d.seen[line] {
		return
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	d.seen[line] = true
	d.lines = append(d.lines, line)
	d.scopes = append(d.scopes, scope)
}

func (d *deniedReads) print(errOut io.Writer) {
	for _, line := range d.lines {
		fmt.Fprintf(errOut, "warning: %s\n", line)
	}
}
