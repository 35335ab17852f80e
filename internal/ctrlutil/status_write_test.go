package ctrlutil

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/scheme"
)

// sentPatch is what a status write sent: its conditions' messages and resourceVersion.
type sentPatch struct {
	Metadata struct{ ResourceVersion string }
	Status   struct{ Conditions []metav1.Condition }
}

// refusingLong is a client whose API server refuses a status with a message longer
// than conditions.RefusedMessage, as the real one refuses one over 32768 bytes; it
// keeps every patch sent.
func refusingLong(t *testing.T, obj client.Object) (client.Client, *[]sentPatch) {
	var sent []sentPatch
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(obj).WithStatusSubresource(obj).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				data, err := patch.Data(obj)
				if err != nil {
					return err
				}
				var p sentPatch
				if err := json.Unmarshal(data, &p); err != nil {
					t.Fatal(err)
				}
				sent = append(sent, p)
				for _, c := range p.Status.Conditions {
					if len(c.Message) > conditions.RefusedMessage {
						return apierrors.NewInvalid(schema.GroupKind{Group: gatewayv1.GroupName, Kind: "GatewayClass"}, obj.GetName(),
							field.ErrorList{field.TooLong(field.NewPath("status"), "", conditions.RefusedMessage)})
					}
				}
				return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
			},
		}).Build()
	return c, &sent
}

func TestWriteStatus(t *testing.T) {
	since := metav1.Now()
	accepted := func(message string) gatewayv1.GatewayClassStatus {
		return gatewayv1.GatewayClassStatus{Conditions: []metav1.Condition{{
			Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", Message: message, LastTransitionTime: since,
		}}}
	}
	short := func(s gatewayv1.GatewayClassStatus) gatewayv1.GatewayClassStatus {
		s.Conditions = conditions.Short(s.Conditions)
		return s
	}
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name             string
		original, status gatewayv1.GatewayClassStatus
		opts             func(client.Object) []StatusOption
		wantWrites       int
		wantMessage      int // bytes of the message stored
		wantLock         bool
	}{
		{name: "a status that did not change is not written", original: accepted("same"), status: accepted("same"), wantWrites: 0, wantMessage: 0},
		{name: "a status that changed is written once", status: accepted("new"), wantWrites: 1, wantMessage: 3},
		{name: "a status refused for what it holds is written again with short messages", status: accepted(long), wantWrites: 2, wantMessage: conditions.RefusedMessage},
		{
			name: "an optimistic lock carries the resourceVersion read", status: accepted("new"), wantWrites: 1, wantMessage: 3, wantLock: true,
			opts: func(obj client.Object) []StatusOption { return []StatusOption{OptimisticLock(obj)} },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "internet"}, Status: tc.original}
			c, sent := refusingLong(t, class)
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(class), class); err != nil {
				t.Fatal(err)
			}
			var opts []StatusOption
			if tc.opts != nil {
				opts = tc.opts(class)
			}
			if err := WriteStatus(t.Context(), c, class, tc.original, tc.status, short, opts...); err != nil {
				t.Fatal(err)
			}
			if len(*sent) != tc.wantWrites {
				t.Fatalf("%d writes, want %d", len(*sent), tc.wantWrites)
			}
			if tc.wantWrites == 0 {
				return
			}
			want := ""
			if tc.wantLock {
				want = class.ResourceVersion
			}
			if got := (*sent)[0].Metadata.ResourceVersion; got != want {
				t.Errorf("resourceVersion %q sent, want %q", got, want)
			}
			stored := &gatewayv1.GatewayClass{}
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(class), stored); err != nil {
				t.Fatal(err)
			}
			if got := len(stored.Status.Conditions[0].Message); got > tc.wantMessage || got == 0 {
				t.Errorf("stored message of %d bytes, want %d at most", got, tc.wantMessage)
			}
		})
	}
}

// TestWriteStatusDoesNotTrustACacheBehindItsOwnWrite: a round that reads the object
// before the cache has seen the round before's write compares with a status the server
// no longer holds. It writes anyway, locked to the version it read: refused for a
// conflict while the cache is behind, compared as usual once it caught up.
func TestWriteStatusDoesNotTrustACacheBehindItsOwnWrite(t *testing.T) {
	since := metav1.Now()
	programmed := func(status metav1.ConditionStatus, reason string) gatewayv1.GatewayClassStatus {
		return gatewayv1.GatewayClassStatus{Conditions: []metav1.Condition{{
			Type: "Accepted", Status: status, Reason: reason, LastTransitionTime: since,
		}}}
	}
	same := func(s gatewayv1.GatewayClassStatus) gatewayv1.GatewayClassStatus { return s }
	ready, pending := programmed(metav1.ConditionTrue, "Accepted"), programmed(metav1.ConditionFalse, "Pending")
	class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "stale", UID: "stale-uid"}, Status: ready}
	c, sent := refusingLong(t, class)
	cached := &gatewayv1.GatewayClass{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(class), cached); err != nil {
		t.Fatal(err)
	}

	// One round writes Pending; the cache still holds the version before it.
	if err := WriteStatus(t.Context(), c, cached, ready, pending, same); err != nil {
		t.Fatal(err)
	}
	// The next round computes ready from that cached copy, which says ready already.
	err := WriteStatus(t.Context(), c, cached, ready, ready, same)
	if !apierrors.IsConflict(err) || len(*sent) != 2 || (*sent)[1].Metadata.ResourceVersion != cached.ResourceVersion {
		t.Fatalf("a round on a cache behind the last write: error %v after %d writes (the last locked to %q); want a conflict on a write locked to %q",
			err, len(*sent), (*sent)[len(*sent)-1].Metadata.ResourceVersion, cached.ResourceVersion)
	}

	// Once the cache holds the write, the round writes what changed, and then nothing.
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(class), cached); err != nil {
		t.Fatal(err)
	}
	if err := WriteStatus(t.Context(), c, cached, cached.Status, ready, same); err != nil {
		t.Fatal(err)
	}
	stored := &gatewayv1.GatewayClass{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(class), stored); err != nil {
		t.Fatal(err)
	}
	if got := stored.Status.Conditions[0].Reason; got != "Accepted" {
		t.Fatalf("the server holds %s, want Accepted", got)
	}
	if err := WriteStatus(t.Context(), c, stored, ready, ready, same); err != nil || len(*sent) != 3 {
		t.Fatalf("a status the server holds was written again (%d writes, %v)", len(*sent), err)
	}
}
