package offline_test

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/offline"
)

func gatewayYAML(namespace, name string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + ", namespace: " + namespace + ", labels: {team: a}}\nspec: {gatewayClassName: gw}\n"
}

// The index answers as the scan did, whatever happened to the set since it was built.
func TestSetReadsFollowTheSet(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, set *offline.Set)
		want   []string // the Gateways team-a lists, by name
	}{
		{name: "a Gateway added after a read is read", change: func(t *testing.T, set *offline.Set) {
			if err := set.Add([]byte(gatewayYAML("team-a", "late"))); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"web", "api", "late"}},
		{name: "a slice a caller replaces is read anew", change: func(_ *testing.T, set *offline.Set) {
			set.Gateways = set.Gateways[1:]
		}, want: []string{"api"}},
		{name: "changing what a read returned changes nothing in the set", change: func(t *testing.T, set *offline.Set) {
			var list gatewayv1.GatewayList
			if err := set.List(t.Context(), &list, client.InNamespace("team-a")); err != nil {
				t.Fatal(err)
			}
			list.Items[0].Labels["team"] = "changed"
			var gw gatewayv1.Gateway
			if err := set.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: "api"}, &gw); err != nil {
				t.Fatal(err)
			}
			gw.Labels["team"] = "changed"
		}, want: []string{"web", "api"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &offline.Set{}
			if err := set.Add([]byte(gatewayYAML("team-a", "web") + "---\n" + gatewayYAML("team-a", "api") + "---\n" + gatewayYAML("team-b", "web"))); err != nil {
				t.Fatal(err)
			}
			var before gatewayv1.GatewayList
			if err := set.List(t.Context(), &before, client.InNamespace("team-a")); err != nil {
				t.Fatal(err)
			}
			tt.change(t, set)
			var list gatewayv1.GatewayList
			if err := set.List(t.Context(), &list, client.InNamespace("team-a")); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, gw := range list.Items {
				got = append(got, gw.Name)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("team-a lists %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("team-a lists %v, want %v", got, tt.want)
				}
			}
			for _, name := range tt.want {
				var gw gatewayv1.Gateway
				if err := set.Get(t.Context(), client.ObjectKey{Namespace: "team-a", Name: name}, &gw); err != nil {
					t.Errorf("Get %s: %v", name, err)
				} else if gw.Labels["team"] != "a" {
					t.Errorf("Gateway %s has the label team=%s, want a", name, gw.Labels["team"])
				}
			}
		})
	}
}
