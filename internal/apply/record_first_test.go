package apply

import (
	"context"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

// The record is written before an apply only when the apply may create an object it does
// not list, or changes what a rollout or a route reads before the objects change: a
// change of content only is recorded once, after the apply.
func TestRecordIsWrittenBeforeTheApplyOnlyWhenItMustBe(t *testing.T) {
	tests := []struct {
		name   string
		change func(rec *Record, planned Inventory) Inventory
		want   bool
	}{
		{"the same objects with new content, values, routes served and tenant inputs", func(rec *Record, planned Inventory) Inventory {
			planned[0].Hash, rec.ValuesHash, rec.ServedRoutes, rec.TenantInputs = "h2", "other", "AAAAAAAAAAA=", "inputs"
			return planned
		}, false},
		{"fewer objects", func(_ *Record, planned Inventory) Inventory { return planned[:1] }, false},
		{"an object the record does not list", func(_ *Record, planned Inventory) Inventory {
			return append(planned, Entry{APIVersion: "v1", Kind: "Secret", Namespace: "team-a", Name: "token", Template: "token"})
		}, true},
		{"an object now rendered by another template", func(_ *Record, planned Inventory) Inventory {
			planned[1].Template = "other"
			return planned
		}, true},
		{"another blueprint revision", func(rec *Record, planned Inventory) Inventory {
			rec.Revision = 4
			return planned
		}, true},
		{"routes left out for a bound", func(rec *Record, planned Inventory) Inventory {
			rec.RouteCutoff = &gatewrightv1alpha1.RouteCutoff{Namespace: "team-b", Name: "late", Message: "over the bound"}
			return planned
		}, true},
		{"a route its templates refuse", func(rec *Record, planned Inventory) Inventory {
			rec.RouteRefused = "unsupported filter"
			return planned
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
			a := New(c, c)
			owner := GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u1"}})
			rec, err := a.LoadRecord(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			if !rec.recordFirst(configMaps(2)) {
				t.Fatal("an owner without a record does not record its objects before applying them")
			}
			rec.Revision = 3
			if err := a.SaveRecord(ctx, rec, configMaps(2)); err != nil {
				t.Fatal(err)
			}
			if rec, err = a.LoadRecord(ctx, owner); err != nil {
				t.Fatal(err)
			}
			planned := tt.change(rec, configMaps(2))
			if got := rec.recordFirst(planned); got != tt.want {
				t.Errorf("recordFirst = %v, want %v", got, tt.want)
			}
		})
	}
}

// An apply that changes an object's content writes its record once, after the object:
// the route's edit on a shared Gateway waits for one write, not two.
func TestAContentChangeIsRecordedAfterItsApply(t *testing.T) {
	ctx := context.Background()
	var writes []string
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			writes = append(writes, "create "+obj.GetName())
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			writes = append(writes, "update "+obj.GetName())
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			writes = append(writes, "patch "+obj.GetName())
			return c.Patch(ctx, obj, patch, opts...)
		},
	}).Build()
	// The applier tells its two readers apart by comparing them: an interceptor is not
	// comparable, a pointer to one is.
	shared := &struct{ client.WithWatch }{c}
	a := New(shared, shared)
	owner := GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u1"}})
	configMap := func(value string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "team-a", "name": "web-routes"},
			"data":     map[string]any{"routes": value},
		}}
		labels := owner.recordLabels()
		labels[templateLabel] = "routes"
		obj.SetLabels(labels)
		return obj
	}
	applyOnce := func(value string) {
		t.Helper()
		rec, err := a.LoadRecord(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		// What only the record reads is computed for its first write, once.
		rec.Later(func(rec *Record) {
			writes = append(writes, "fill")
			rec.TenantInputs = "inputs of " + value
		})
		if _, err := a.ApplyRecorded(ctx, rec, []*unstructured.Unstructured{configMap(value)}, nil); err != nil {
			t.Fatal(err)
		}
		part := &gatewrightv1alpha1.Rendering{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "team-a", Name: "gateway.web"}, part); err != nil {
			t.Fatal(err)
		}
		if part.TenantInputs != "inputs of "+value {
			t.Errorf("the record holds tenant inputs %q, want those of %s", part.TenantInputs, value)
		}
	}
	applyOnce("/a")
	if len(writes) < 3 || writes[0] != "fill" || writes[1] != "create gateway.web" || slices.Contains(writes[2:], "fill") {
		t.Fatalf("a new object was applied with writes %v, want its record filled in once and created first", writes)
	}
	writes = nil
	applyOnce("/a/edited")
	if got := fmt.Sprint(writes); got != "[patch web-routes fill update gateway.web]" {
		t.Errorf("a content change was applied with writes %s, want the object's patch, then the record filled in and updated", got)
	}
}
