package render_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
)

// blueprint reads a blueprint spec written in YAML; the blueprint is named "bp".
func blueprint(t testing.TB, spec string) *gatewrightv1alpha1.GatewayClassBlueprint {
	t.Helper()
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}}
	if err := yaml.UnmarshalStrict([]byte(spec), &bp.Spec); err != nil {
		t.Fatal(err)
	}
	return bp
}

// gatewayTemplates is a blueprint spec with the given gateway resource templates.
func gatewayTemplates(t testing.TB, templates ...string) *gatewrightv1alpha1.GatewayClassBlueprint {
	t.Helper()
	bp := blueprint(t, "gatewayTemplate: {}")
	for i, text := range templates {
		bp.Spec.GatewayTemplate.ResourceTemplates = append(bp.Spec.GatewayTemplate.ResourceTemplates,
			gatewrightv1alpha1.ResourceTemplate{Name: []string{"first", "second", "third"}[i], Template: text})
	}
	return bp
}

func testGateway() *gatewayv1.Gateway {
	return &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team-a"},
		Spec: gatewayv1.GatewaySpec{
			GatewayClassName: "internet",
			Listeners:        []gatewayv1.Listener{{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80}},
		},
	}
}

func testInput(values map[string]any) render.Input {
	return render.Input{
		Values:       values,
		Gateway:      testGateway(),
		GatewayClass: &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "internet"}, Spec: gatewayv1.GatewayClassSpec{ControllerName: gatewrightv1alpha1.ControllerName}},
	}
}

// renderGateway parses bp and renders it for the test Gateway with values.
func renderGateway(t testing.TB, bp *gatewrightv1alpha1.GatewayClassBlueprint, values map[string]any) (*render.Output, error) {
	t.Helper()
	parsed, err := render.Parse(bp)
	if err != nil {
		return nil, err
	}
	return parsed.Gateway(testInput(values))
}
