package apply

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// recordIndex is the field index of Renderings by owner that an Applier from NewIndexed
// reads its records by: a lookup, where a label selector has the cache match the labels
// of every Rendering of the namespace, once per reconcile, which grows with the square
// of the Gateways in one namespace.
const recordIndex = "owner"

// NewIndexed returns an Applier, like New, that finds its records by a field index it
// registers with indexer, the field indexer of c's cache.
func NewIndexed(ctx context.Context, c client.Client, apiReader client.Reader, indexer client.FieldIndexer) (*Applier, error) {
	if err := indexer.IndexField(ctx, &gatewrightv1alpha1.Rendering{}, recordIndex, recordIndexValues); err != nil {
		return nil, err
	}
	a := New(c, apiReader)
	a.indexedRecords = true
	return a, nil
}

// recordIndexValues indexes a Rendering by its owner's kind and name; the records read by
// it are checked against their owner (namedBy) like those found by label.
func recordIndexValues(obj client.Object) []string {
	r := obj.(*gatewrightv1alpha1.Rendering)
	return []string{ownerIndexValue(r.Owner.Kind, r.Owner.Name)}
}

func ownerIndexValue(kind, name string) string { return kind + "/" + name }

// listRecords lists the Renderings in namespace of the owner of kind and name, those
// that selector matches.
func (a *Applier) listRecords(ctx context.Context, namespace, kind, name string, selector client.ListOption) (*gatewrightv1alpha1.RenderingList, error) {
	var list gatewrightv1alpha1.RenderingList
	match := selector
	if a.indexedRecords {
		match = client.MatchingFields{recordIndex: ownerIndexValue(kind, name)}
	}
	return &list, a.client.List(ctx, &list, client.InNamespace(namespace), match)
}
