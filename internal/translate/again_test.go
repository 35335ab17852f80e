package translate

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
)

// After an apply, a Gateway is rendered again only when that may render something else:
// a class-wide change of values renders each of a thousand Gateways once.
func TestRenderAgainOnlyWhenAnObjectAppliedIsRead(t *testing.T) {
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}}
	bp.Spec.GatewayTemplate.ResourceTemplates = []gatewrightv1alpha1.ResourceTemplate{
		{Name: "config", Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: config}\ndata: {image: {{ .Values.image | quote }}}\n"},
		{Name: "service", Template: "apiVersion: v1\nkind: Service\nmetadata: {name: proxy}\nspec: {ports: [{port: 80}]}\n"},
		{Name: "copy", Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: copy}\ndata: {{ with .Resources.config }}{{ (index . 0).data | toJson }}{{ else }}{}{{ end }}\n"},
	}
	bp.Spec.GatewayTemplate.Status = &gatewrightv1alpha1.StatusTemplate{Template: "addresses:\n{{- range .Resources.service }}\n- {type: Hostname, value: {{ .metadata.name }}}\n{{- end }}\n"}
	parsed, err := render.Parse(bp)
	if err != nil {
		t.Fatal(err)
	}
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}
	// The objects as the apply leaves them, by template.
	kinds := map[string][2]string{"config": {"ConfigMap", "config"}, "service": {"Service", "proxy"}, "copy": {"ConfigMap", "copy"}}
	live := func(templates ...string) map[string][]*unstructured.Unstructured {
		out := map[string][]*unstructured.Unstructured{}
		for _, template := range templates {
			kind := kinds[template]
			obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind[0],
				"metadata": map[string]any{"namespace": "team-a", "name": kind[1]}, "data": map[string]any{"image": "v1"}}}
			out[template] = append(out[template], obj)
		}
		return out
	}
	ready := func(*unstructured.Unstructured, string) (bool, string) { return true, "" }
	result := func(in render.Input) *Result {
		in.Gateway, in.GatewayClass, in.Values, in.IsReady = gw, &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "internet"}}, map[string]any{"image": "v2"}, ready
		out, err := parsed.Gateway(in)
		if err != nil {
			t.Fatal(err)
		}
		return &Result{Blueprint: parsed, Output: out, Input: in}
	}
	settled := result(render.Input{Live: live("config", "service", "copy")})
	fresh := result(render.Input{Live: map[string][]*unstructured.Unstructured{}})
	for _, tc := range []struct {
		name    string
		res     *Result
		changed []string
		want    bool
	}{
		{"nothing changed", settled, nil, false},
		{"an object only its own template renders", settled, []string{"copy"}, false},
		{"an object a gateway template reads", settled, []string{"config"}, true},
		{"an object the status template reads", settled, []string{"service"}, true},
		{"the status template has not run yet", fresh, []string{"copy"}, true},
	} {
		if got := tc.res.AgainMayDiffer(tc.changed); got != tc.want {
			t.Errorf("%s: AgainMayDiffer(%v) = %v, want %v", tc.name, tc.changed, got, tc.want)
		}
	}
	// And what it spares would have rendered the same: the copy changed, which nothing reads.
	again, _, err := settled.RenderAgain(live("config", "service", "copy"))
	if err != nil {
		t.Fatal(err)
	}
	if !again.StatusRendered || len(again.Addresses) != 1 || !reflect.DeepEqual(again.Addresses, settled.Output.Addresses) {
		t.Errorf("rendered again: addresses %v, the first render %v", again.Addresses, settled.Output.Addresses)
	}
}
