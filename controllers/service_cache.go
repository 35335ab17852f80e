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
	"github.com/gatewright/gatewright/internal/ctrlutil"
)

// serviceMetadata is the metadata-only form in which Services are cached for backendRefs.
func serviceMetadata() *metav1.PartialObjectMetadata {
	return ctrlutil.Metadata(corev1.SchemeGroupVersion.WithKind("Service"))
}

// newServiceMetadataCache caches every Service's identity, all that backendRefs need to
// know (whether it exists).
func newServiceMetadataCache(mgr ctrl.Manager) (cache.Cache, error) {
	return ctrlutil.NewMetadataCache(mgr, serviceMetadata(), cache.ByObject{Label: labels.Everything()})
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
