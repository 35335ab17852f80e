package snapshot

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/scheme"
)

func TestRevisionReadsReadEachRevisionOnce(t *testing.T) {
	live := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "envoy", UID: "uid-live"}}
	live.Status.CurrentRevision = 1
	rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{Blueprint: "envoy", Revision: 1}
	rev.Name = revisions.Name("envoy", 1)
	rev.OwnerReferences = []metav1.OwnerReference{{Kind: "GatewayClassBlueprint", Name: "envoy", UID: live.UID, Controller: ptr.To(true)}}
	gets := 0
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(rev).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gets++
			return c.Get(ctx, key, obj, opts...)
		}}).Build()

	var reads revisionReads
	for range 3 {
		got, err := reads.running(context.Background(), reader, live, 0)
		if err != nil || got == nil || got.Revision != 1 {
			t.Fatalf("got %v, %v; want revision 1", got, err)
		}
	}
	// A target not in the cluster: its error is remembered too, not read again.
	for range 2 {
		if _, err := reads.running(context.Background(), reader, live, 2); err == nil {
			t.Fatal("revision 2 was found; want the error that it is not read yet")
		}
	}
	if gets != 2 {
		t.Errorf("%d reads, want 2 (one per revision)", gets)
	}
}
