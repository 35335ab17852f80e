package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/values"
)

// The Enforced condition of a policy ancestor, in the words of GEP-713 (Standard).
const (
	conditionEnforced       = "Enforced"
	reasonEnforced          = "Enforced"
	reasonPartiallyEnforced = "PartiallyEnforced"
	reasonOverridden        = "Overridden"
	reasonPending           = "Pending"
)

// contextReport is a policy's report in the values of one context.
type contextReport struct {
	context valuesContext
	report  values.PolicyReport
}

// enforcement judges how much of the policy took effect over every context the target
// reaches; inputs are shared by the targets of one policy, which often reach the same
// classes and namespaces. Contexts of one chain share one Result, so it is only read.
func (r *PolicyReconciler) enforcement(ctx context.Context, obj client.Object, target gatewayv1.LocalPolicyTargetReference, inputs *valueInputsCache) (verdict, error) {
	contexts, err := r.contextsReached(ctx, obj.GetNamespace(), target)
	if err != nil {
		return verdict{}, err
	}
	source := values.Source{Kind: r.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	var reports []contextReport
	var violations, sums, blocked []string
	unused := unusedValues{}
	judged := map[*values.Result]bool{} // contexts of one chain share its Result
	for _, c := range contexts {
		in, ok := inputs.get(ctx, c)
		if !ok {
			continue // the Gateway or route reports what keeps it from computing values
		}
		res, err := in.compute(c)
		var sumErr *values.SumLimitError
		switch {
		case errors.As(err, &sumErr) && sumErr.Names(source):
			// Over a bound together with the rest of the chain: each policy named as a
			// large contributor is Invalid, since any of them can bring the sum down.
			sums = append(sums, fmt.Sprintf("on %s: %v", c, err))
		case sumErr != nil:
			blocked = append(blocked, fmt.Sprintf("on %s: %v", c, err))
		}
		if res == nil {
			continue
		}
		for _, report := range res.Policies {
			if report.Source == source {
				reports = append(reports, contextReport{context: c, report: report})
			}
		}
		if !judged[res] {
			judged[res] = true
			unused.add(in.Blueprint.Name, source, in.parsed.UnusedValues(res))
		}
		var schemaErr *values.SchemaError
		if errors.As(err, &schemaErr) {
			for _, v := range schemaErr.Violations {
				if v.SetBy != nil && v.SetBy.Source == source {
					violations = append(violations, fmt.Sprintf("%s: %s (%s)", v.Path, v.Message, c))
				}
			}
		}
	}
	v := enforcementVerdict(reports, violations, sums, blocked)
	if note := unused.note(); note != "" {
		v.message += "; " + note
	}
	return v, nil
}

// valueInputsCache reads the values inputs of each context once per class and pair of
// namespaces, since one policy often reaches many Gateways of one class, and computes
// the values once per chain of policies.
type valueInputsCache struct {
	reader              client.Reader
	controllerNamespace string
	blueprints          *render.Cache
	inputs              map[string]*valueInputs // nil: cannot be computed
}

// valueInputs are the inputs of one class and pair of namespaces, with the values
// computed from them in this judgement by chain: most Gateways of a namespace take the
// same policies, so the first of them computes the values of all.
type valueInputs struct {
	values.Inputs
	parsed   *render.Blueprint
	computed map[string]computedValues // by values.Inputs.ChainKey
}

type computedValues struct {
	result *values.Result
	err    error
}

// compute returns what snapshot.ComputeValues returns for c, computing it once per chain.
func (v *valueInputs) compute(c valuesContext) (*values.Result, error) {
	key, err := v.ChainKey(c.gateway, c.route)
	if err != nil {
		return nil, err
	}
	if done, ok := v.computed[key]; ok {
		return done.result, done.err
	}
	res, err := snapshot.ComputeValues(&v.Inputs, c.gateway, c.route)
	if v.computed == nil {
		v.computed = map[string]computedValues{}
	}
	v.computed[key] = computedValues{result: res, err: err}
	return res, err
}

// get returns the inputs of c, false when c's values are not computed at all: its class
// is not Gatewright's, its blueprint is missing or broken (which the Gateway reports), or
// c is a route and the blueprint renders nothing for routes.
func (cache *valueInputsCache) get(ctx context.Context, c valuesContext) (*valueInputs, bool) {
	routeNamespace := c.gateway.Namespace
	if c.route != nil {
		routeNamespace = c.route.Namespace
	}
	key := string(c.gateway.Spec.GatewayClassName) + " " + c.gateway.Namespace + " " + routeNamespace
	in, seen := cache.inputs[key]
	if !seen {
		in = cache.load(ctx, string(c.gateway.Spec.GatewayClassName), c.gateway.Namespace, routeNamespace)
		if cache.inputs == nil {
			cache.inputs = map[string]*valueInputs{}
		}
		cache.inputs[key] = in
	}
	if in == nil || (c.route != nil && in.Blueprint.Spec.HTTPRouteTemplate == nil) {
		return nil, false
	}
	return in, true
}

func (cache *valueInputsCache) load(ctx context.Context, className string, namespaces ...string) *valueInputs {
	class, err := getClass(ctx, cache.reader, className)
	if err != nil || !isGatewrightClass(class) {
		return nil
	}
	in, err := snapshot.Values(ctx, cache.reader, cache.controllerNamespace, class, namespaces...)
	if err != nil {
		return nil
	}
	parsed, err := cache.blueprints.Get(in.Blueprint)
	if err != nil {
		return nil
	}
	in.Schema = parsed.ValuesSchema()
	return &valueInputs{Inputs: in, parsed: parsed}
}

// contextsShown bounds how many contexts a message names.
const contextsShown = 5

// enforcementVerdict sums up a policy's reports over the contexts it takes part in. A
// value the blueprint's valuesSchema refuses stops the context from rendering at all, so
// it outweighs everything else. Messages carry no counts that change with every new
// Gateway, so that a growing fleet does not rewrite every policy's status.
func enforcementVerdict(reports []contextReport, violations, sums, blocked []string) verdict {
	if len(sums) > 0 {
		if len(sums) > contextsShown {
			sums = append(sums[:contextsShown], fmt.Sprintf("and on %d more", len(sums)-contextsShown))
		}
		return verdict{reason: string(gatewayv1.PolicyReasonInvalid), message: "over a bound together with the other policies that reach the same values: " + strings.Join(sums, "; ")}
	}
	if len(violations) > 0 {
		return verdict{reason: string(gatewayv1.PolicyReasonInvalid), message: "refused by the blueprint's valuesSchema: " + strings.Join(violations, "; ")}
	}
	if len(blocked) > contextsShown {
		blocked = append(blocked[:contextsShown], fmt.Sprintf("and on %d more", len(blocked)-contextsShown))
	}
	if len(reports) == 0 && len(blocked) > 0 {
		return verdict{reason: reasonPending, message: "not in effect, the values are not computed: " + strings.Join(blocked, "; ")}
	}
	if len(reports) == 0 {
		return verdict{reason: reasonPending, message: "no Gateway or route of Gatewright takes values from this target yet"}
	}
	notes := blocked
	winners := map[string]bool{}
	overridden := 0
	for _, cr := range reports {
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
		return verdict{ok: true, reason: reasonEnforced, message: "in effect on every Gateway and route it reaches"}
	case overridden == len(reports):
		return verdict{reason: reasonOverridden, message: "every value is overridden by " + orItself(sortedKeys(winners))}
	}
	if len(notes) > contextsShown {
		notes = append(notes[:contextsShown], fmt.Sprintf("and on %d more", len(notes)-contextsShown))
	}
	return verdict{ok: true, reason: reasonPartiallyEnforced, message: "not all in effect: " + strings.Join(notes, "; ")}
}

func orItself(by []string) string {
	if len(by) == 0 {
		return "the policy's own overrides"
	}
	return strings.Join(by, ", ")
}
