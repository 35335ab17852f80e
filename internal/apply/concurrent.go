package apply

import (
	"context"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// requestsPerOwner bounds the requests one owner's apply has in flight at once: the
// objects of one Gateway are independent of each other (a template that needs another's
// object ready waits for it through dependsOn, and is not rendered until then), so their
// round trips overlap instead of adding up.
const requestsPerOwner = 8

// eachConcurrently calls do for every index of objs, the objects that others may need to
// exist first (namespaces, CRDs) one after another before the rest concurrently, and
// returns the first error.
func eachConcurrently(ctx context.Context, objs []*unstructured.Unstructured, do func(ctx context.Context, i int) error) error {
	var first, rest []int
	for i, obj := range objs {
		if comesFirst(obj) {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	for _, i := range first {
		if err := do(ctx, i); err != nil {
			return err
		}
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(requestsPerOwner)
	for _, i := range rest {
		g.Go(func() error { return do(ctx, i) })
	}
	return g.Wait()
}

// comesFirst tells whether other objects may need obj to exist: a Namespace they live in,
// or a CustomResourceDefinition that serves their kind.
func comesFirst(obj *unstructured.Unstructured) bool {
	gvk := obj.GroupVersionKind()
	return (gvk.Group == "" && gvk.Kind == "Namespace") ||
		(gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition")
}
