package translate

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/values"
)

// affectedConditions maps each ...Affected condition to the kind of policy it names.
var affectedConditions = map[string]string{
	gatewrightv1alpha1.ConditionGatewayClassConfigAffected: gatewrightv1alpha1.KindGatewayClassConfig,
	gatewrightv1alpha1.ConditionGatewayConfigAffected:      gatewrightv1alpha1.KindGatewayConfig,
}

// SetAffected sets, in conditions of an object of generation, the
// gatewright.dev/...Affected conditions naming the policies of each kind that change its
// values, and the blocks of theirs that applied only because their condition could not
// be evaluated; it removes a condition no policy of its kind calls for.
func SetAffected(conds *[]metav1.Condition, generation int64, policies []values.PolicyReport) {
	for conditionType, kind := range affectedConditions {
		names := affectingPolicies(policies, kind)
		if len(names) == 0 {
			meta.RemoveStatusCondition(conds, conditionType)
			continue
		}
		message := "values from " + strings.Join(names, ", ")
		for _, report := range policies {
			if report.Source.Kind == kind {
				for _, warning := range report.FailedClosedWarnings() {
					message += "; " + warning
				}
			}
		}
		conditions.Set(conds, conditionType, true, "Affected", message, generation)
	}
}

// affectingPolicies names, in chain order, the policies of a kind among reports that
// have at least one value in effect.
func affectingPolicies(reports []values.PolicyReport, kind string) []string {
	var names []string
	for _, report := range reports {
		if report.Source.Kind == kind && report.State() != values.Overridden {
			names = append(names, report.Source.Namespace+"/"+report.Source.Name)
		}
	}
	return names
}
