package apply

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

func configMaps(n int) Inventory {
	inv := make(Inventory, n)
	for i := range inv {
		inv[i] = Entry{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-a", Name: fmt.Sprintf("cm-%05d", i), Template: "configs", Hash: "h"}
	}
	return inv
}

func TestRecordSplitsIntoPartsAndShrinks(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	a := New(c, c)
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "u1"}}
	owner := GatewayOwner(gw)

	rec, err := a.LoadRecord(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SaveRecord(ctx, rec, configMaps(4500)); err != nil {
		t.Fatal(err)
	}
	var list gatewrightv1alpha1.RenderingList
	if err := c.List(ctx, &list, client.InNamespace("team-a")); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list.Items {
		names = append(names, fmt.Sprintf("%s:%d/%d:%d", r.Name, r.Part, r.Parts, len(r.Objects)))
	}
	if got, want := strings.Join(names, " "), "gateway-1.web:1/3:2000 gateway-2.web:2/3:500 gateway.web:0/3:2000"; got != want {
		t.Fatalf("4,500 objects are recorded as %s, want %s", got, want)
	}

	reread, err := a.LoadRecord(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if len(reread.Inventory) != 4500 {
		t.Fatalf("the record reads back %d objects, want 4500", len(reread.Inventory))
	}
	if err := a.SaveRecord(ctx, reread, configMaps(10)); err != nil {
		t.Fatal(err)
	}
	if err := c.List(ctx, &list, client.InNamespace("team-a")); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || len(list.Items[0].Objects) != 10 || list.Items[0].Parts != 1 {
		t.Fatalf("after shrinking to 10 objects the record is %d Renderings, want one of 10 objects", len(list.Items))
	}
}

func TestRecordIgnoresRenderingsOfOthersAndEntriesOutsideTheNamespace(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	a := New(c, c)
	web := GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}})
	route := RouteOwner(KindHTTPRoute, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "shop"}}, "team-a", "web")

	routeRendering := route.rendering(0, 1, configMaps(1))
	if err := c.Create(ctx, routeRendering); err != nil {
		t.Fatal(err)
	}
	misplaced := web.rendering(0, 1, Inventory{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-b", Name: "theirs", Template: "configs"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "reader", Template: "role"},
	})
	if err := c.Create(ctx, misplaced); err != nil {
		t.Fatal(err)
	}
	rec, err := a.LoadRecord(ctx, web)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Inventory) != 1 || rec.Inventory[0].Name != "reader" {
		t.Fatalf("the Gateway's record reads %v, want only the cluster-scoped ClusterRole reader", rec.Inventory)
	}
	routes, err := a.LoadRouteRecords(ctx, KindHTTPRoute, route.Object)
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) != 1 || len(routes["team-a/web"].Inventory) != 1 {
		t.Fatalf("the route's records are %v, want one on team-a/web", routes)
	}
}

// A GRPCRoute and an HTTPRoute of one name on one Gateway have records and objects of
// their own: neither reads, owns, nor so prunes, the other's. The HTTPRoute's, which
// carry no route-kind label, are as Gatewright wrote them before the other kinds had
// templates.
func TestRoutesOfTwoKindsAndOneNameKeepTheirOwnRecordsAndObjects(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	a := New(c, c)
	meta := metav1.ObjectMeta{Namespace: "team-a", Name: "shop"}
	http := RouteOwner(KindHTTPRoute, &gatewayv1.HTTPRoute{ObjectMeta: meta}, "team-a", "web")
	grpc := RouteOwner("GRPCRoute", &gatewayv1.GRPCRoute{ObjectMeta: meta}, "team-a", "web")
	if err := c.Create(ctx, http.rendering(0, 1, configMaps(1))); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, grpc.rendering(0, 1, configMaps(2))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		owner   Owner
		objects int
	}{{http, 1}, {grpc, 2}} {
		records, err := a.LoadRouteRecords(ctx, tc.owner.GVK.Kind, tc.owner.Object)
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || len(records["team-a/web"].Inventory) != tc.objects {
			t.Errorf("the %s's records are %v, want one of %d objects on team-a/web", tc.owner.GVK.Kind, records, tc.objects)
		}
	}
	object := func(labels map[string]string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{}
		obj.SetLabels(labels)
		return obj
	}
	grpcObject, httpObject := object(grpc.recordLabels()), object(http.recordLabels())
	if http.owns(grpcObject) || grpc.owns(httpObject) || !http.owns(httpObject) || !grpc.owns(grpcObject) {
		t.Errorf("each route must own its own objects only: labels %v and %v", httpObject.GetLabels(), grpcObject.GetLabels())
	}
	if _, marked := httpObject.GetLabels()["gatewright.dev/route-kind"]; marked {
		t.Errorf("an HTTPRoute's objects carry a route-kind label: %v", httpObject.GetLabels())
	}
	if OwnerOfRendering(grpc.rendering(0, 1, nil)).GVK.Kind != "GRPCRoute" {
		t.Error("the owner a GRPCRoute's Rendering names is not a GRPCRoute")
	}
}

func TestRenderingNames(t *testing.T) {
	long := strings.Repeat("a", 250)
	for _, tc := range []struct {
		name  string
		owner Owner
		part  int32
		want  string
	}{
		{"a Gateway's first part", GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web"}}), 0, "gateway.web"},
		{"a Gateway's third part", GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "web"}}), 2, "gateway-2.web"},
		{"a route on a Gateway", RouteOwner(KindHTTPRoute, &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}, "team-a", "web"), 0, "httproute.shop." + shortHash("team-a/web")},
		{"a GRPCRoute of that name", RouteOwner("GRPCRoute", &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}, "team-a", "web"), 0, "grpcroute.shop." + shortHash("team-a/web")},
		{"a name too long is cut and hashed", GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: long}}), 0, ("gateway." + long)[:244] + "-" + shortHash("gateway."+long)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.owner.renderingName(tc.part)
			if got != tc.want || len(got) > 253 {
				t.Fatalf("got %q (%d), want %q", got, len(got), tc.want)
			}
		})
	}
}

func TestPlannedKeepsReadinessOnlyForUnchangedObjects(t *testing.T) {
	previous := Inventory{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "same", Hash: "1", Ready: true},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "changed", Hash: "1", Ready: true},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "gone", Hash: "1", Ready: true},
	}
	planned := Inventory{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "same", Hash: "1"},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "changed", Hash: "2"},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "a", Name: "new", Hash: "1"},
	}
	got := map[string]string{}
	for _, e := range Planned(previous, planned) {
		got[e.Name] = fmt.Sprintf("%s/%v", e.Hash, e.Ready)
	}
	want := map[string]string{"same": "1/true", "changed": "2/false", "new": "1/false", "gone": "1/true"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("planned record %v, want %v", got, want)
	}
}

func TestLiveReadsBackOnlyTheOwnersObjectsOfTheEntrysTemplate(t *testing.T) {
	ctx := context.Background()
	labels := func(gateway, template string) map[string]string {
		return map[string]string{
			gatewrightv1alpha1.LabelManagedBy: gatewrightv1alpha1.ManagedByValue, gatewayv1.GatewayNameLabelKey: gateway,
			gatewrightv1alpha1.LabelGatewayNamespace: "team-a", gatewrightv1alpha1.LabelTemplate: template,
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mine", Labels: labels("web", "configs")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "other-gateway", Labels: labels("api", "configs")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "other-template", Labels: labels("web", "secrets")}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "unlabelled"}},
	).Build()
	a := New(c, c)
	owner := GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}})
	var inv Inventory
	for _, name := range []string{"mine", "other-gateway", "other-template", "unlabelled", "gone"} {
		inv = append(inv, Entry{APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-a", Name: name, Template: "configs"})
	}
	live, err := a.Live(ctx, owner, inv)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 || len(live["configs"]) != 1 || live["configs"][0].GetName() != "mine" {
		t.Fatalf("templates would read back %v, want only ConfigMap mine", live)
	}
}
