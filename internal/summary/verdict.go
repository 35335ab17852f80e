package summary

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/conditions"
)

// State is where an object stands, as the summary conditions say it.
type State int

// States, from the best to the worst: a summary of several verdicts is the worst.
const (
	// InEffect: Ready=True.
	InEffect State = iota
	// Held: Ready=False, neither Reconciling nor Stalled (kstatus: InProgress; Argo CD:
	// Suspended). A paused rollout holds what it carries until it is resumed.
	Held
	// Progressing: Ready=False and Reconciling=True (kstatus: InProgress).
	Progressing
	// Failed: Ready=False and Stalled=True (kstatus: Failed).
	Failed
)

// Verdict is a State and why.
type Verdict struct {
	State   State
	Reason  string
	Message string
}

// Worst is the worst of verdicts, the first of equals; InEffect when there are none.
func Worst(verdicts ...Verdict) Verdict {
	var worst Verdict
	for i, v := range verdicts {
		if i == 0 || v.State > worst.State {
			worst = v
		}
	}
	return worst
}

// Set writes v into conds as the summary conditions of an object of generation: Ready
// always; Reconciling and Stalled, abnormal-true, only while True, as kstatus asks (it
// reads their absence as False).
func Set(conds *[]metav1.Condition, v Verdict, generation int64) {
	conditions.Set(conds, gatewrightv1alpha1.ConditionReady, v.State == InEffect, v.Reason, v.Message, generation)
	setAbnormal(conds, gatewrightv1alpha1.ConditionReconciling, v, v.State == Progressing, generation)
	setAbnormal(conds, gatewrightv1alpha1.ConditionStalled, v, v.State == Failed, generation)
}

func setAbnormal(conds *[]metav1.Condition, conditionType string, v Verdict, on bool, generation int64) {
	if !on {
		meta.RemoveStatusCondition(conds, conditionType)
		return
	}
	conditions.Set(conds, conditionType, true, v.Reason, v.Message, generation)
}
