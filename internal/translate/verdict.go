package translate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/values"
)

// The reasons of a policy ancestor's Enforced condition, in the words of GEP-713.
const (
	ReasonEnforced          = "Enforced"
	ReasonPartiallyEnforced = "PartiallyEnforced"
	ReasonOverridden        = "Overridden"
	ReasonPending           = "Pending"
)

// Verdict is a condition's status, reason and message.
type Verdict struct {
	OK      bool
	Reason  string
	Message string
}

// contextsShown bounds how many contexts a message names.
const contextsShown = 5

// Enforcement judges how much of one policy took effect over the contexts (Gateways,
// and routes on Gateways) it takes part in. Results of one chain are often shared by
// many contexts; each is read once.
type Enforcement struct {
	source                    values.Source
	reports                   []contextReport
	violations, sums, blocked []string
	// excused are the contexts refused for a sum over a bound that the policy's own
	// additions kept within: they count only where nothing else does.
	excused []string
	unused  unusedValues
	judged  map[*values.Result]bool
}

type contextReport struct {
	context string
	report  values.PolicyReport
}

// NewEnforcement starts the judgement of the policy source.
func NewEnforcement(source values.Source) *Enforcement {
	return &Enforcement{source: source, unused: unusedValues{}, judged: map[*values.Result]bool{}}
}

// Add records what res, the values of the context named by context, say of the policy.
func (e *Enforcement) Add(context string, res *Result) {
	var sumErr *values.SumLimitError
	if errors.As(res.Err, &sumErr) {
		// Written for the policy's own status: it names no object of a namespace that
		// the readers of the policy's may not read.
		note := fmt.Sprintf("on %s: %s", context, sumErr.MessageFor(e.source.Namespace))
		switch sumErr.ChargeOf(e.source) {
		case values.Charged:
			// Over a bound, and the policy's party took the sum there: each of its
			// large contributors is Invalid, since any of them can bring the sum down.
			e.sums = append(e.sums, note)
		case values.Blocked:
			e.blocked = append(e.blocked, note)
		case values.NotCharged:
			// The policies after its own took the sum over the bound, and answer for it
			// (the route, refused on its own status): the policy keeps its verdict.
			e.excused = append(e.excused, note)
		}
	}
	if res.Values == nil {
		return
	}
	for _, report := range res.Values.Policies {
		if report.Source == e.source {
			e.reports = append(e.reports, contextReport{context: context, report: report})
		}
	}
	if !e.judged[res.Values] && res.Blueprint != nil {
		e.judged[res.Values] = true
		e.unused.add(res.Blueprint.Name(), e.source, res.Blueprint.UnusedValues(res.Values))
	}
	var schemaErr *values.SchemaError
	if errors.As(res.Err, &schemaErr) {
		for _, v := range schemaErr.Violations {
			if v.SetBy != nil && v.SetBy.Source == e.source {
				e.violations = append(e.violations, fmt.Sprintf("%s: %s (%s)", v.Path, v.Message, context))
			}
		}
	}
}

// NotComputed records that the values of the context named by context are not computed
// at all, for err. One the input causes (a blueprint that does not parse, a Gateway that
// names a missing GatewayConfig) keeps the policy from taking effect there: it is named,
// not passed over as if the target reached nothing. The context's own status says why;
// a transient error is not worth a change of verdict.
func (e *Enforcement) NotComputed(context string, err error) {
	if Classify(err) == InputError {
		e.blocked = append(e.blocked, fmt.Sprintf("on %s, which cannot compute values (its status says why)", context))
	}
}

// Verdict sums up the policy's reports. A value the blueprint's valuesSchema refuses
// stops the context from rendering at all, so it outweighs everything else. Messages
// carry no counts that change with every new Gateway, so that a growing fleet does not
// rewrite every policy's status.
func (e *Enforcement) Verdict() Verdict {
	v := e.verdict()
	if note := e.unused.note(); note != "" {
		v.Message += "; " + note
	}
	return v
}

func (e *Enforcement) verdict() Verdict {
	if sums := e.sums; len(sums) > 0 {
		return Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: "over a bound together with the other policies that reach the same values: " + strings.Join(shown(sums), "; ")}
	}
	if len(e.violations) > 0 {
		return Verdict{Reason: string(gatewayv1.PolicyReasonInvalid), Message: "refused by the blueprint's valuesSchema: " + strings.Join(e.violations, "; ")}
	}
	blocked := shown(e.blocked)
	if len(e.reports) == 0 && len(blocked) > 0 {
		return Verdict{Reason: ReasonPending, Message: "not in effect, the values are not computed: " + strings.Join(blocked, "; ")}
	}
	if len(e.reports) == 0 && len(e.excused) > 0 {
		return Verdict{Reason: ReasonPending, Message: "not in effect, the values are not computed for a bound that other policies took them over: " + strings.Join(shown(e.excused), "; ")}
	}
	if len(e.reports) == 0 {
		return Verdict{Reason: ReasonPending, Message: "no Gateway or route of Gatewright takes values from this target yet"}
	}
	notes := blocked
	winners := map[string]bool{}
	overridden := 0
	for _, cr := range e.reports {
		var shortfalls []string
		if cr.report.State() != values.Enforced {
			by := cr.report.OverriddenBy()
			names := make([]string, len(by))
			for i, source := range by {
				names[i] = source.String()
				winners[source.String()] = true
			}
			shortfalls = append(shortfalls, "overridden by "+orItself(names))
		}
		if cr.report.State() == values.Overridden {
			overridden++
		}
		for _, failed := range cr.report.FailedClosed {
			shortfalls = append(shortfalls, fmt.Sprintf("the when of its %s could not be evaluated, so the %s applies (fails closed): %s", failed.As, failed.As, failed.Error))
		}
		if refused := cr.report.RefusedUnsets; len(refused) > 0 {
			paths := make([]string, len(refused))
			for i, u := range refused {
				paths[i] = u.Path
			}
			shortfalls = append(shortfalls, "the blueprint forbids tenants to unset "+strings.Join(paths, ", "))
		}
		if len(shortfalls) > 0 {
			notes = append(notes, fmt.Sprintf("on %s: %s", cr.context, strings.Join(shortfalls, "; ")))
		}
	}
	switch {
	case len(notes) == 0:
		return Verdict{OK: true, Reason: ReasonEnforced, Message: "in effect on every Gateway and route it reaches"}
	case overridden == len(e.reports):
		return Verdict{Reason: ReasonOverridden, Message: "every value is overridden by " + orItself(slices.Sorted(maps.Keys(winners)))}
	}
	return Verdict{OK: true, Reason: ReasonPartiallyEnforced, Message: "not all in effect: " + strings.Join(shown(notes), "; ")}
}

// shown keeps the first contextsShown notes and counts the rest.
func shown(notes []string) []string {
	if len(notes) <= contextsShown {
		return notes
	}
	return append(slices.Clip(notes[:contextsShown]), fmt.Sprintf("and on %d more", len(notes)-contextsShown))
}

func orItself(by []string) string {
	if len(by) == 0 {
		return "the policy's own overrides"
	}
	return strings.Join(by, ", ")
}

// NotAccepted is the Enforced verdict on a policy's target that is not accepted: nothing
// is computed for it.
var NotAccepted = Verdict{Reason: ReasonPending, Message: "the target is not accepted"}
