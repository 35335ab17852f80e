package render_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
)

// The routes and the route table are given to the blueprints that may read them, through
// a template, a helper or tpl; building them for one that never does is wasted work.
func TestRoutesAreGivenToTheTemplatesThatMayReadThem(t *testing.T) {
	counts := `{{ len .HTTPRoutes }}/{{ len .RouteTable.routes }}`
	tests := []struct {
		name, helpers, template, want string
	}{
		{name: "a template that names them", template: counts, want: "1/1"},
		{name: "a helper that names them", helpers: `{{ define "counts" }}` + counts + `{{ end }}`, template: `{{ include "counts" . }}`, want: "1/1"},
		{name: "a template that runs tpl", template: `{{ tpl "{{ len .HTTPRoutes }}/{{ len .RouteTable.routes }}" . }}`, want: "1/1"},
	}
	route := gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team-a"}}
	table := &routing.Table{Listeners: []routing.Listener{}, Routes: []routing.RouteVerdict{{ObjectRef: routing.ObjectRef{Kind: "HTTPRoute", Namespace: "team-a", Name: "shop"}, Accepted: true}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := gatewayTemplates(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: counts}\ndata: {counts: \""+tt.template+"\"}\n")
			bp.Spec.Helpers = tt.helpers
			parsed, err := render.Parse(bp)
			if err != nil {
				t.Fatal(err)
			}
			in := testInput(nil)
			in.HTTPRoutes, in.RouteTable = []*gatewayv1.HTTPRoute{&route}, table
			out, err := parsed.Gateway(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Objects[0].Object["data"].(map[string]any)["counts"]; got != tt.want {
				t.Errorf("rendered %v, want %s", got, tt.want)
			}
		})
	}
}
