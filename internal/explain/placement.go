package explain

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	statusconditions "github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// Placement is where a policy lands: what explain gatewayconfig|gatewayclassconfig prints.
type Placement struct {
	Policy values.Source `json:"policy"`
	// Values are the leaves the policy sets.
	Values []values.SetValue `json:"values"`
	// Invalid is why the policy cannot be used at all: no values are computed with it.
	Invalid string            `json:"invalid,omitempty"`
	Targets []TargetPlacement `json:"targets"`
	// Partial tells that the placement was computed without what Unread lists, which it
	// depends on (explain --partial): contexts may be missing, and the verdicts are
	// judged over those shown only.
	Partial bool     `json:"partial,omitempty"`
	Unread  []string `json:"unread,omitempty"`
}

// TargetPlacement is where one target of the policy leads.
type TargetPlacement struct {
	// Target is Kind/Name, as the policy's status names it.
	Target string `json:"target"`
	// Accepted is the condition the controller writes for this target when the target is
	// not accepted (it does not exist, or may not be targeted); omitted otherwise.
	Accepted *Condition `json:"accepted,omitempty"`
	// Programmed is the condition the controller writes for this target, with GEP-713's
	// reasons (gateway-api v1.6.3).
	Programmed Condition `json:"programmed"`
	// Enforced is the same judgement in the older words the controller writes beside it.
	// Deprecated: read Programmed; Enforced is dropped with the condition, a minor release on.
	Enforced Condition `json:"enforced"`
	// Contexts counts the Gateways, and routes on Gateways, the target reaches.
	Contexts int `json:"contexts"`
	// Outcomes group the contexts where every value of the policy fared alike.
	Outcomes []Outcome `json:"outcomes"`
}

// Condition is a condition the controller writes on the policy's status.
type Condition struct {
	Status  metav1.ConditionStatus `json:"status"`
	Reason  string                 `json:"reason"`
	Message string                 `json:"message"`
}

// Outcome is a group of contexts where the policy's values fared alike.
type Outcome struct {
	Count    int      `json:"count"`
	Contexts []string `json:"contexts"`
	// Revisions are the blueprint revisions the contexts' values are computed with,
	// those their Gateways run; none for the live spec of a blueprint without them.
	Revisions []int64 `json:"revisions,omitempty"`
	ContextFates
}

// Reached is what one target of a policy reaches, as read: the verdict on a target that
// is not accepted, else the contexts it reaches, each with its values.
type Reached struct {
	// NotAccepted is the verdict on the target when it is not accepted; nil when it is,
	// or when the caller may not read whether it is, which leaves it to the contexts.
	NotAccepted *translate.Verdict
	Contexts    []ReachedContext
}

// ReachedContext is a Gateway, or an HTTPRoute on a Gateway, that a target reaches.
type ReachedContext struct {
	// Name names it as snapshot.Context does: "Gateway NS/NAME", or "HTTPRoute NS/NAME
	// on Gateway NS/NAME".
	Name string
	// Values are its values; nil when they are not computed, and Err says why.
	Values *translate.Result
	Err    error
	// Revision is the blueprint revision its values are computed with; 0 for the live spec.
	Revision int64
}

// ReadTarget reads what a target of the policy being placed reaches.
type ReadTarget func(target gatewayv1.LocalPolicyTargetReference) (Reached, error)

// Place explains where the policy source, of targets and blocks, lands: it reads what
// each target reaches with read, and judges it as the controller does.
func Place(source values.Source, targets []gatewayv1.LocalPolicyTargetReference, blocks *gatewrightv1alpha1.DefaultsAndOverrides, read ReadTarget) (*Placement, error) {
	pl := &Placement{Policy: source, Values: []values.SetValue{}, Targets: []TargetPlacement{}}
	sets, err := values.ValuesOf(source, blocks)
	if err != nil {
		// As the controller: the policy is Invalid on every target, nothing is computed.
		pl.Invalid = err.Error()
		for _, target := range targets {
			tp := TargetPlacement{Target: targetName(target), Outcomes: []Outcome{}}
			tp.judged(translate.Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: err.Error()})
			pl.Targets = append(pl.Targets, tp)
		}
		return pl, nil
	}
	if sets != nil {
		pl.Values = sets
	}
	for _, target := range targets {
		reached, err := read(target)
		if err != nil {
			return nil, fmt.Errorf("%s: target %s: %w", source, targetName(target), err)
		}
		pl.Targets = append(pl.Targets, placeTarget(source, sets, target, reached))
	}
	return pl, nil
}

// placeTarget explains one target: its contexts grouped by outcome, and the verdict
// over them.
func placeTarget(source values.Source, sets []values.SetValue, target gatewayv1.LocalPolicyTargetReference, reached Reached) TargetPlacement {
	tp := TargetPlacement{Target: targetName(target), Outcomes: []Outcome{}}
	// As the controller: a target that is not accepted has nothing enforced.
	if accepted := reached.NotAccepted; accepted != nil {
		tp.Accepted = &Condition{Status: metav1.ConditionFalse, Reason: accepted.Reason, Message: accepted.Message}
		tp.judged(translate.NotAccepted)
		return tp
	}
	tp.Contexts = len(reached.Contexts)
	judge := translate.NewEnforcement(source)
	groups := outcomeGroups{source: source, sets: sets, list: []Outcome{}, byFates: map[string]int{}, byResult: map[*translate.Result]int{}}
	for _, c := range reached.Contexts {
		if c.Values != nil {
			judge.Add(c.Name, c.Values)
		}
		groups.add(c.Name, c.Values, c.Err, c.Revision)
	}
	tp.Outcomes = groups.list
	tp.judged(judge.Verdict())
	return tp
}

// judged sets the conditions the controller writes for the verdict enforced: Programmed,
// in GEP-713's words (translate.Programmed), and the deprecated Enforced beside it.
func (tp *TargetPlacement) judged(enforced translate.Verdict) {
	tp.Programmed = condition(translate.Programmed(enforced))
	tp.Enforced = condition(enforced)
}

func condition(v translate.Verdict) Condition {
	c := Condition{Status: metav1.ConditionFalse, Reason: v.Reason, Message: statusconditions.Message(v.Message)}
	if v.OK {
		c.Status = metav1.ConditionTrue
	}
	return c
}

func targetName(target gatewayv1.LocalPolicyTargetReference) string {
	return string(target.Kind) + "/" + string(target.Name)
}

// FailedClosedWarnings say, once per outcome, which halves applied because their
// condition could not be evaluated.
func (p *Placement) FailedClosedWarnings() []string {
	var out []string
	for _, t := range p.Targets {
		for _, o := range t.Outcomes {
			seen := map[values.Half]bool{}
			for _, v := range o.Values {
				if v.FailedClosed != "" && !seen[v.As] {
					seen[v.As] = true
					out = append(out, fmt.Sprintf("on %s (%d context(s)): %s; its %s applied (a condition that cannot be evaluated fails closed)", o.Contexts[0], o.Count, v.FailedClosed, v.As))
				}
			}
		}
	}
	return out
}
