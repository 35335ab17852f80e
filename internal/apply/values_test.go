package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/internal/values"
)

var providerConfig = values.Origin{
	Source: values.Source{Kind: "GatewayClassConfig", Namespace: "edge", Name: "aws"},
	As:     values.Override, Level: values.LevelProviderClass, Strategy: gatewrightv1alpha1.StrategyPatch,
}

func blueprint(private ...string) *gatewrightv1alpha1.GatewayClassBlueprint {
	return &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "internet"},
		Spec: gatewrightv1alpha1.GatewayClassBlueprintSpec{PrivateValuePaths: private}}
}

func TestRecordValuesKeepsPrivatePathsPrivate(t *testing.T) {
	tests := []struct {
		name    string
		private []string
		leaf    values.Leaf
		want    string // the recorded value, or PrivateValue
	}{
		{name: "a value at no private path is recorded as JSON", private: []string{"aws.accountId"},
			leaf: values.Leaf{Path: "service.type", Value: "LoadBalancer"}, want: `"LoadBalancer"`},
		{name: "the value at a private path is private", private: []string{"aws.accountId"},
			leaf: values.Leaf{Path: "aws.accountId", Value: "123456789012"}, want: gatewrightv1alpha1.PrivateValue},
		{name: "a value under a private path is private", private: []string{"secrets"},
			leaf: values.Leaf{Path: `secrets["db.password"]`, Value: "hunter2"}, want: gatewrightv1alpha1.PrivateValue},
		{name: "a value dropped whole that holds a private path is private", private: []string{"aws.accountId"},
			leaf: values.Leaf{Path: "aws", Value: map[string]any{"accountId": "123456789012"}, DroppedBy: &providerConfig}, want: gatewrightv1alpha1.PrivateValue},
		{name: "a path that only starts with the same letters is not private", private: []string{"aws.accountId"},
			leaf: values.Leaf{Path: "aws.accountIdentity", Value: "shown"}, want: `"shown"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.leaf.Origin = providerConfig
			rec := RecordValues(&values.Result{Provenance: []values.Leaf{tt.leaf}}, "internet", blueprint(tt.private...))
			leaf := rec.Provenance[0]
			got := leaf.Value
			if leaf.Private {
				got = gatewrightv1alpha1.PrivateValue
				if leaf.Value != "" {
					t.Fatalf("a private leaf records its value %s", leaf.Value)
				}
			}
			if got != tt.want {
				t.Fatalf("recorded %s, want %s", got, tt.want)
			}
			if leaf.Source.Name != "aws" || leaf.As != "override" || leaf.Level != 4 {
				t.Fatalf("the provenance is lost: %+v", leaf.RecordedOrigin)
			}
		})
	}
}

func TestRecordValuesStaysWithinItsBound(t *testing.T) {
	leaves := func(n, size int) *values.Result {
		res := &values.Result{Policies: []values.PolicyReport{{Source: providerConfig.Source, Levels: []values.Level{4}, Leaves: n}}}
		for i := range n {
			res.Provenance = append(res.Provenance, values.Leaf{Path: fmt.Sprintf("k%05d", i), Value: strings.Repeat("x", size), Origin: providerConfig})
		}
		return res
	}
	tests := []struct {
		name       string
		res        *values.Result
		wantValues bool
		wantLeaves int
		wantCut    string
	}{
		{name: "a small record keeps everything", res: leaves(10, 100), wantValues: true, wantLeaves: 10},
		{name: "a record over 64 KiB keeps the provenance without the values", res: leaves(100, 1000), wantLeaves: 100,
			wantCut: "the values are left out: with them the record is"},
		{name: "a record over 64 KiB without values keeps the first leaves that fit", res: leaves(5000, 10),
			wantCut: "leaves and 0 of 1 policies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := RecordValues(tt.res, "internet", blueprint())
			if size := documentSize(rec); size > gatewrightv1alpha1.MaxRecordedValuesBytes {
				t.Fatalf("the record is %d bytes of JSON", size)
			}
			if hasValue := rec.Provenance[0].Value != ""; hasValue != tt.wantValues {
				t.Fatalf("the record has values: %v, want %v", hasValue, tt.wantValues)
			}
			if tt.wantLeaves > 0 && len(rec.Provenance) != tt.wantLeaves {
				t.Fatalf("the record keeps %d leaves, want %d", len(rec.Provenance), tt.wantLeaves)
			}
			if !strings.Contains(rec.Cut, tt.wantCut) || (tt.wantCut == "") != (rec.Cut == "") {
				t.Fatalf("cut says %q, want it to contain %q", rec.Cut, tt.wantCut)
			}
		})
	}
}

// The record is written when the values change, and only then; an owner without
// objects has a Rendering for its values.
func TestSaveRecordWritesValuesOnlyWhenTheyChange(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	a := New(c, c)
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "shop", UID: "u2"}}
	owner := RouteOwner(KindHTTPRoute, route, "edge", "web")
	save := func(value string) *gatewrightv1alpha1.Rendering {
		t.Helper()
		rec, err := a.LoadRecord(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		res := &values.Result{Provenance: []values.Leaf{{Path: "timeout", Value: value, Origin: providerConfig}}}
		rec.Values = RecordValues(res, "internet", blueprint())
		if err := a.SaveRecord(ctx, rec, nil); err != nil {
			t.Fatal(err)
		}
		var list gatewrightv1alpha1.RenderingList
		if err := c.List(ctx, &list, client.InNamespace("team-b")); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Values == nil {
			t.Fatalf("want one Rendering with values, got %+v", list.Items)
		}
		return &list.Items[0]
	}
	first := save("10s")
	if got := first.Values.Provenance[0].Value; got != `"10s"` {
		t.Fatalf("recorded %s", got)
	}
	if again := save("10s"); again.ResourceVersion != first.ResourceVersion || !again.Values.RecordedAt.Equal(&first.Values.RecordedAt) {
		t.Fatalf("the same values were written again: resourceVersion %s -> %s", first.ResourceVersion, again.ResourceVersion)
	}
	if changed := save("30s"); changed.ResourceVersion == first.ResourceVersion || changed.Values.Provenance[0].Value != `"30s"` {
		t.Fatalf("changed values were not written: %+v", changed.Values)
	}
}

// Part 0 with 2,000 entries of the longest names and the largest values record still
// fits etcd's 1.5 MiB request limit.
func TestTheLargestRenderingFitsEtcd(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: long(63), Name: long(253), UID: "0a1b2c3d-0a1b-0a1b-0a1b-0a1b2c3d4e5f"}}
	inv := make(Inventory, gatewrightv1alpha1.MaxRenderedObjectsPerRendering)
	for i := range inv {
		inv[i] = Entry{APIVersion: long(63) + "/v1alpha1", Kind: long(63), Namespace: long(63), Name: long(253), Template: long(63), Hash: long(32), Ready: true}
	}
	rendering := GatewayOwner(gw).rendering(0, 1, inv)
	// Values of quotes, the costliest to escape: the record is a JSON document in a
	// string, so each of its quotes and backslashes takes two bytes in the Rendering.
	quotes, err := json.Marshal(strings.Repeat(`"`, 50))
	if err != nil {
		t.Fatal(err)
	}
	res := &values.Result{}
	for i := range 100_000 {
		res.Provenance = append(res.Provenance, values.Leaf{Path: fmt.Sprintf("k%06d", i), Value: string(quotes), Origin: providerConfig})
	}
	rendering.Values = RecordValues(res, long(253), blueprint())
	if rendering.Values.Cut == "" || len(rendering.Values.Provenance) == 0 {
		t.Fatalf("the record was not filled to its bound: %d leaves, cut %q", len(rendering.Values.Provenance), rendering.Values.Cut)
	}
	if size, limit := jsonSize(rendering), 3<<19; size > limit {
		t.Fatalf("the largest Rendering is %d bytes of JSON, over etcd's %d", size, limit)
	}
}
