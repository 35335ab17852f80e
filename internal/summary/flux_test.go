package summary_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fluxcd/pkg/apis/kustomize"
	fluxcel "github.com/fluxcd/pkg/runtime/cel"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// fluxExprs are the healthCheckExprs docs/install.md gives Flux for Gateway API's kinds.
var fluxExprs = filepath.Join("..", "..", "config", "flux", "healthcheckexprs.yaml")

// fluxChecks are the entries of fluxExprs, read as the API server reads a Kustomization's
// spec.healthCheckExprs into Flux's own type: field names case-sensitive, none unknown. A
// field Flux does not know (a misspelt inprogress) fails here, rather than being dropped
// from a Kustomization without a word.
func fluxChecks(t *testing.T) []kustomize.CustomHealthCheck {
	t.Helper()
	raw, err := os.ReadFile(fluxExprs)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	var checks []kustomize.CustomHealthCheck
	strict, err := sigsjson.UnmarshalStrict(raw, &checks)
	if err := errors.Join(append(strict, err)...); err != nil {
		t.Fatalf("%s: %v", fluxExprs, err)
	}
	return checks
}

// fluxHealth is what Flux's healthCheckExprs for obj's kind make of it, computed by
// Flux's own evaluator (the one kustomize-controller and helm-controller run: its CEL
// environment, its order inProgress, failed, current); Unknown when it cannot evaluate
// them (a status not written yet), which Flux waits on. Besides, exactly one of the
// three expressions must hold, so the order never decides.
func fluxHealth(t *testing.T, obj *unstructured.Unstructured) string {
	t.Helper()
	for _, check := range fluxChecks(t) {
		if check.APIVersion != obj.GetAPIVersion() || check.Kind != obj.GetKind() {
			continue
		}
		evaluator, err := fluxcel.NewStatusEvaluator(&check.HealthCheckExpressions)
		if err != nil {
			t.Fatalf("%s: %v", check.Kind, err)
		}
		result, err := evaluator.Evaluate(t.Context(), obj)
		if err != nil {
			return "Unknown"
		}
		var holds []string
		for _, e := range []struct{ state, expr string }{{"InProgress", check.InProgress}, {"Failed", check.Failed}, {"Current", check.Current}} {
			expr, err := fluxcel.NewExpression(e.expr)
			if err != nil {
				t.Fatalf("%s %s: %v", check.Kind, e.state, err)
			}
			if ok, err := expr.EvaluateBoolean(t.Context(), obj.Object); err != nil {
				t.Fatalf("%s %s: %v", check.Kind, e.state, err)
			} else if ok {
				holds = append(holds, e.state)
			}
		}
		if len(holds) != 1 {
			t.Fatalf("%s: %v hold, want exactly one", check.Kind, holds)
		}
		return string(result.Status)
	}
	t.Fatalf("no healthCheckExprs for %s", obj.GetKind())
	return ""
}
