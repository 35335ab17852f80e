package offline_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/scheme"
)

// midRolloutObjects are midRollout's objects, with a route's Rendering besides the
// Gateway's, as the API server holds them.
func midRolloutObjects(t *testing.T) []client.Object {
	t.Helper()
	objs, err := manifest.Decode([]byte(midRollout(t) + `---
apiVersion: gatewright.dev/v1alpha1
kind: Rendering
metadata:
  name: httproute.shop.0123456789
  namespace: team-a
  labels: {gatewright.dev/httproute-name: shop}
owner: {kind: HTTPRoute, name: shop, gatewayNamespace: team-a, gatewayName: api}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]client.Object, len(objs))
	for i, obj := range objs {
		typed, err := scheme.New().New(obj.GroupVersionKind())
		if err != nil {
			t.Fatal(err)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed); err != nil {
			t.Fatal(err)
		}
		out[i] = typed.(client.Object)
	}
	return out
}

// FromCluster reads what says which revision each Gateway runs: the revisions, and the
// Gateways' Renderings (not the routes'); a caller who may not read the revisions is
// told that the live spec stands in.
func TestFromClusterReadsTheRevisionsGatewaysRun(t *testing.T) {
	tests := []struct {
		name       string
		reader     func(...client.Object) client.Reader
		want       string
		renderings int
		note       string
	}{
		{name: "a reader of everything computes each Gateway with the revision it runs",
			reader: func(objs ...client.Object) client.Reader {
				return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
			},
			want:       "map[api:two hello web:one hello]",
			renderings: 1},
		{name: "a tenant who may not list the revisions gets the live spec, and a note",
			reader:     tenantReader,
			want:       "map[api:two hello web:two hello]",
			renderings: 1,
			note:       "GatewayClassBlueprintRevisions (cluster-scoped): missing permission list things; Gateways are computed with their blueprint's live spec, not the revision they run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, unread, err := offline.FromCluster(context.Background(), tt.reader(midRolloutObjects(t)...), offline.ClusterOptions{Namespaces: []string{"team-a"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Renderings) != tt.renderings || set.Renderings[0].Owner.Kind != "Gateway" {
				t.Errorf("read Renderings %v, want the Gateway's only", set.Renderings)
			}
			var notes []string
			for _, u := range unread {
				if !u.AllNamespaces {
					notes = append(notes, u.String())
				}
			}
			if tt.note != "" && !slices.Contains(notes, tt.note) || tt.note == "" && len(notes) > 0 {
				t.Errorf("unread %q, want %q", notes, tt.note)
			}
			rendered, err := set.Render("gatewright-system", "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rendered {
				for _, obj := range r.Objects {
					data := obj.Object["data"].(map[string]any)
					got[obj.GetName()] = fmt.Sprint(data["version"], " ", data["greeting"])
				}
			}
			if fmt.Sprint(got) != tt.want {
				t.Errorf("rendered %v, want %s", got, tt.want)
			}
		})
	}
}
