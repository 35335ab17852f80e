package apply

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/scheme"
)

// countingGets is a fake client that counts the objects read from it, in a cluster that
// serves ConfigMaps and Secrets in v1.
func countingGets(reads *int, objs ...client.Object) client.Client {
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{corev1.SchemeGroupVersion})
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("Secret"), meta.RESTScopeNamespace)
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithRESTMapper(mapper).WithObjects(objs...).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			*reads++
			return c.Get(ctx, key, obj, opts...)
		},
	}).Build()
}

// TestAdoptableReadsABoundedNumberOfObjects: a forged legacy annotation of thousands of
// entries costs at most LegacyEntryLimit reads, all from the cache, and none for entries
// the owner could not have had.
func TestAdoptableReadsABoundedNumberOfObjects(t *testing.T) {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}
	owner := GatewayOwner(gw)
	labels := map[string]string{"app.kubernetes.io/managed-by": "gatewright", "gatewright.dev/template": "config"}
	for k, v := range owner.Labels {
		labels[k] = v
	}
	stale := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "cm-00000", Labels: labels}}
	entries := func(n int, apiVersion, kind, namespace string) Inventory {
		inv := make(Inventory, n)
		for i := range inv {
			inv[i] = Entry{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: fmt.Sprintf("cm-%05d", i), Template: "config"}
		}
		inv.sort()
		return inv
	}
	configMaps := func(gk schema.GroupKind) bool { return gk == schema.GroupKind{Kind: "ConfigMap"} }
	for _, tc := range []struct {
		name                     string
		legacy                   Inventory
		wantCacheReads, wantDrop int
		wantAdopted              []string
	}{
		{"2,500 entries of a kind the blueprint renders cost 256 cache reads and no API request", entries(2500, "v1", "ConfigMap", "team-a"), 256, 2244, []string{"v1 ConfigMap team-a/cm-00000"}},
		{"entries of a kind the blueprint does not render are not read", entries(2500, "v1", "Secret", "team-a"), 0, 0, nil},
		{"entries of another namespace are not read", entries(2500, "v1", "ConfigMap", "team-b"), 0, 0, nil},
		{"an entry's made-up version is read, and kept, as the version the cluster serves", entries(1, "v9", "ConfigMap", "team-a"), 1, 0, []string{"v1 ConfigMap team-a/cm-00000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cacheReads, apiReads int
			a := New(countingGets(&cacheReads, stale), countingGets(&apiReads))
			adopted, dropped, err := a.Adoptable(context.Background(), owner, tc.legacy, configMaps, func(Entry) bool { return false })
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range adopted {
				got = append(got, e.APIVersion+" "+e.String())
			}
			if cacheReads != tc.wantCacheReads || apiReads != 0 || dropped != tc.wantDrop || fmt.Sprint(got) != fmt.Sprint(tc.wantAdopted) {
				t.Errorf("cache reads %d, API reads %d, dropped %d, adopted %v; want %d, 0, %d, %v",
					cacheReads, apiReads, dropped, got, tc.wantCacheReads, tc.wantDrop, tc.wantAdopted)
			}
		})
	}
}

// TestAdoptableReturnsAFailedRead: an object that could not be read is neither adopted nor
// dropped; the move is tried again rather than saving a Rendering without it, which would
// leave the object unpruned for good.
func TestAdoptableReturnsAFailedRead(t *testing.T) {
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}
	mapper := meta.NewDefaultRESTMapper([]schema.GroupVersion{corev1.SchemeGroupVersion})
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	timedOut := apierrors.NewTimeoutError("the cache is not synced", 1)
	cache := fake.NewClientBuilder().WithScheme(scheme.New()).WithRESTMapper(mapper).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return timedOut
		},
	}).Build()
	legacy := Inventory{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-a", Name: "config", Template: "config"}}
	configMaps := func(gk schema.GroupKind) bool { return gk == schema.GroupKind{Kind: "ConfigMap"} }
	adopted, _, err := New(cache, cache).Adoptable(context.Background(), GatewayOwner(gw), legacy, configMaps, func(Entry) bool { return false })
	if !apierrors.IsTimeout(err) || !strings.Contains(fmt.Sprint(err), "ConfigMap team-a/config") || adopted != nil {
		t.Errorf("adopted %v, error %v; want nothing and the read's timeout, naming the entry", adopted, err)
	}
}
