package diff

import (
	"cmp"
	"errors"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// judgement gathers, on one side, the Enforcement of every policy taking part in a
// reached Gateway or route.
type judgement map[values.Source]*translate.Enforcement

// policyChanges judges, on each side, every policy that takes part in a reached
// Gateway or route, or that differs between the sides, over the reached Gateways and
// routes only (the others are not computed), and reports those whose reason changes:
// the Programmed reason, as the controller writes it (translate.Programmed), and the
// deprecated Enforced one beside it.
func policyChanges(pairs []pair, differ map[string][]client.ObjectKey, base, changed *offline.Set) []PolicyChange {
	before, after := judgement{}, judgement{}
	for i := range pairs {
		before.add(&pairs[i].base)
		after.add(&pairs[i].after)
	}
	sources := map[values.Source]bool{}
	for _, j := range []judgement{before, after} {
		for source := range j {
			sources[source] = true
		}
	}
	for kind, keys := range differ {
		for _, key := range keys {
			sources[values.Source{Kind: kind, Namespace: key.Namespace, Name: key.Name}] = true
		}
	}
	existsBefore, existsAfter := policiesOf(base), policiesOf(changed)
	out := []PolicyChange{}
	for source := range sources {
		old := before.verdict(source, existsBefore[source])
		now := after.verdict(source, existsAfter[source])
		programmed := ReasonChange{Old: translate.Programmed(old).Reason, New: translate.Programmed(now).Reason}
		if programmed.Old != programmed.New {
			out = append(out, PolicyChange{Kind: source.Kind, Namespace: source.Namespace, Name: source.Name,
				Programmed: programmed, Old: old.Reason, New: now.Reason, Message: now.Message})
		}
	}
	slices.SortFunc(out, func(a, b PolicyChange) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// add records the contexts of a Gateway's outcome as the controller judges them: not
// where the blueprint is missing or does not parse, and routes only when the blueprint
// renders for routes. A context whose values could not be computed for a sum over a
// bound counts for every policy of its chain, each as the bound charges it.
func (j judgement) add(o *outcome) {
	if o.gateway == nil || o.res.Blueprint == nil {
		return
	}
	gateway := "Gateway " + o.gateway.Namespace + "/" + o.gateway.Name
	j.addContext(gateway, o.res)
	for _, route := range o.routes {
		if route.valued {
			j.addContext(routes.KeyOf(route.route).String()+" on "+gateway, route.res)
		}
	}
}

func (j judgement) addContext(context string, res *translate.Result) {
	var sources []values.Source
	var sumErr *values.SumLimitError
	switch {
	case res.Values != nil:
		for _, report := range res.Values.Policies {
			sources = append(sources, report.Source)
		}
	case errors.As(res.Err, &sumErr):
		sources = sumErr.Sources()
	}
	for _, source := range sources {
		if source.Kind != gatewrightv1alpha1.KindGatewayClassConfig && source.Kind != gatewrightv1alpha1.KindGatewayConfig {
			continue // the blueprint's own values have no verdict
		}
		if j[source] == nil {
			j[source] = translate.NewEnforcement(source)
		}
		j[source].Add(context, res)
	}
}

// verdict is the policy's verdict on this side: none where it does not exist.
func (j judgement) verdict(source values.Source, exists bool) translate.Verdict {
	switch {
	case !exists:
		return translate.Verdict{}
	case j[source] == nil:
		return translate.NewEnforcement(source).Verdict()
	}
	return j[source].Verdict()
}

// policiesOf says which policies a set holds.
func policiesOf(set *offline.Set) map[values.Source]bool {
	out := map[values.Source]bool{}
	for _, p := range set.GatewayClassConfigs {
		out[values.Source{Kind: gatewrightv1alpha1.KindGatewayClassConfig, Namespace: p.Namespace, Name: p.Name}] = true
	}
	for _, p := range set.GatewayConfigs {
		out[values.Source{Kind: gatewrightv1alpha1.KindGatewayConfig, Namespace: p.Namespace, Name: p.Name}] = true
	}
	return out
}
