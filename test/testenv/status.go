package testenv

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Condition describes a condition as a user would read it, "Status/Reason: message",
// or says that it is missing or was observed for another generation.
func Condition(conditions []metav1.Condition, conditionType string, generation int64) string {
	c := meta.FindStatusCondition(conditions, conditionType)
	switch {
	case c == nil:
		return "<none>"
	case c.ObservedGeneration != generation:
		return fmt.Sprintf("stale (generation %d, observed %d)", generation, c.ObservedGeneration)
	}
	return fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
}

// Ancestors describes a policy's ancestor conditions, one line per ancestor and
// condition: "Kind/name Type=Status/Reason: message".
func Ancestors(policy metav1.Object) []string {
	var status gatewrightv1alpha1.PolicyStatus
	switch p := policy.(type) {
	case *gatewrightv1alpha1.GatewayClassConfig:
		status = p.Status
	case *gatewrightv1alpha1.GatewayConfig:
		status = p.Status
	}
	var out []string
	for _, a := range status.Ancestors {
		for _, t := range []string{"Accepted", "Enforced"} {
			out = append(out, fmt.Sprintf("%s/%s %s=%s", *a.AncestorRef.Kind, a.AncestorRef.Name, t, Condition(a.Conditions, t, policy.GetGeneration())))
		}
	}
	return out
}
