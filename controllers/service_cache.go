package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/attach"
)

// serviceMetadata is the metadata-only form in which Services are cached for backendRefs.
func serviceMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	return m
}

// newServiceMetadataCache is a cache of its own for every Service's identity, all that
// backendRefs need to know (whether it exists).
// The manager's cache cannot hold it: its ByObject settings apply per GVK, whatever the
// Go type, so an entry that let the metadata informer see every Service would let the
// informer of rendered Services (unstructured, managed-by=gatewright only) cache every
// Service body too.
func newServiceMetadataCache(mgr ctrl.Manager) (cache.Cache, error) {
	c, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient: mgr.GetHTTPClient(),
		Scheme:     mgr.GetScheme(),
		Mapper:     mgr.GetRESTMapper(),
		ByObject:   map[client.Object]cache.ByObject{serviceMetadata(): {Label: labels.Everything(), Transform: keepIdentity}},
	})
	if err != nil {
		return nil, err
	}
	return c, mgr.Add(c)
}

// serviceExists looks a Service up in reader, a cache of Service metadata.
func serviceExists(ctx context.Context, reader client.Reader) attach.ServiceExists {
	return func(namespace, name string) (bool, error) {
		err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, serviceMetadata())
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
}
