package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/tlscert"
)

// The caches of Secret and Service metadata that certificateRefs and backendRefs are
// resolved through: the identity of each, none of its content.

// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch

// maxSecretVerdicts bounds the verdicts kept on certificate Secrets: a few hundred bytes
// each, and a Secret whose verdict was dropped is only read once more.
const maxSecretVerdicts = 10000

// secretMetadata is the metadata-only form in which Secrets are cached for certificateRefs.
func secretMetadata() *metav1.PartialObjectMetadata {
	return ctrlutil.Metadata(corev1.SchemeGroupVersion.WithKind("Secret"))
}

// newSecretMetadataCache caches the identity of the Secrets of type kubernetes.io/tls,
// the only type a certificateRef may name (a Secret's type never changes): no data, and
// none of the labels, annotations or managed fields that may quote it.
func newSecretMetadataCache(mgr ctrl.Manager) (cache.Cache, error) {
	return ctrlutil.NewMetadataCache(mgr, secretMetadata(), cache.ByObject{
		Label: labels.Everything(),
		Field: fields.OneTermEqualSelector("type", string(corev1.SecretTypeTLS)),
	})
}

// certificateSecrets judges the Secrets that certificateRefs name: which exist it
// learns from the metadata cache, and it reads a Secret from the API server only when no
// verdict is kept for its current resourceVersion, so a steady state reads none. The
// Gateway and HTTPRoute reconcilers share one: one cache, one set of verdicts.
type certificateSecrets struct {
	metadata cache.Cache
	api      client.Reader
	verdicts *tlscert.Verdicts
}

func newCertificateSecrets(mgr ctrl.Manager) (*certificateSecrets, error) {
	metadata, err := newSecretMetadataCache(mgr)
	if err != nil {
		return nil, err
	}
	return &certificateSecrets{metadata: metadata, api: mgr.GetAPIReader(), verdicts: tlscert.NewVerdicts(maxSecretVerdicts)}, nil
}

// check is the attach.SecretCheck of a reconcile.
func (c *certificateSecrets) check(ctx context.Context) attach.SecretCheck {
	return func(namespace, name string) (string, error) {
		key := client.ObjectKey{Namespace: namespace, Name: name}
		cached := secretMetadata()
		if err := c.metadata.Get(ctx, key, cached); apierrors.IsNotFound(err) {
			return fmt.Sprintf("does not exist or is not of type %s", corev1.SecretTypeTLS), nil
		} else if err != nil {
			return "", err
		}
		return c.verdicts.Judge(namespace, name, cached.ResourceVersion, func() (*corev1.Secret, error) {
			metrics.SecretReads.Inc()
			secret := &corev1.Secret{}
			if err := c.api.Get(ctx, key, secret); apierrors.IsNotFound(err) {
				return nil, nil
			} else if err != nil {
				return nil, err
			}
			return secret, nil
		})
	}
}

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
