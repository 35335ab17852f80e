package apply

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

// TestIndexedRecordsReadAsTheLabelledOnes checks that the records found by the owner
// index are those found by label: a Gateway's alone, not those of the route of the
// same name, nor another Gateway's; and a route's on each of its parents.
func TestIndexedRecordsReadAsTheLabelledOnes(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithIndex(&gatewrightv1alpha1.Rendering{}, recordIndex, recordIndexValues).Build()
	byLabel := New(c, c)
	byIndex := New(c, c)
	byIndex.indexedRecords = true

	web := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "g1"}}
	api := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "api", UID: "g2"}}
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "r1"}}
	owners := []Owner{GatewayOwner(web), GatewayOwner(api), RouteOwner(KindHTTPRoute, route, "team-a", "web"), RouteOwner(KindHTTPRoute, route, "team-a", "api")}
	for i, owner := range owners {
		rec, err := byLabel.LoadRecord(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		if err := byLabel.SaveRecord(ctx, rec, configMaps(i+1)); err != nil {
			t.Fatal(err)
		}
	}

	for _, owner := range owners {
		want, err := byLabel.LoadRecord(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		got, err := byIndex.LoadRecord(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.Inventory) != fmt.Sprint(want.Inventory) || len(got.parts) != 1 {
			t.Errorf("%s: by index %v (%d parts), by label %v", owner, got.Inventory, len(got.parts), want.Inventory)
		}
	}
	records, err := byIndex.LoadRouteRecords(ctx, KindHTTPRoute, route)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 2 || len(records["team-a/web"].Inventory) != 3 || len(records["team-a/api"].Inventory) != 4 {
		t.Errorf("the route's records by index are %v, want 3 objects on team-a/web and 4 on team-a/api", records)
	}
}
