package snapshot

import (
	"context"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/translate"
)

// Reached is a context a policy's target reaches, with its values, or why they are not
// computed at all (Err, as contextValues.of says).
type Reached struct {
	Context
	Values *translate.Result
	Err    error
	// Revision is the blueprint revision the values are computed with, that the
	// Gateway runs; 0 for the live spec, or when it was not read.
	Revision int64
}

// Policy gathers what a policy of namespace takes part in through target: each context
// the target reaches, with its values computed, parsed by blueprints, as the context's
// reconciler computes them, at the revision its Gateway runs. The inputs and values are
// shared by the calls of one Gatherer, parsed by the blueprints of the first: the
// targets of one policy often reach the same classes and namespaces. A revision a cache
// has not read yet is an error: judged without it, a verdict would stand until something
// else changed. Through the API server (Rights) it is the error of the contexts on it.
func (g *Gatherer) Policy(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference, blueprints translate.Parser) ([]Reached, error) {
	contexts, err := g.contextsReached(ctx, namespace, target)
	if err != nil {
		return nil, err
	}
	if g.policies == nil {
		g.policies = &contextValues{gatherer: g, blueprints: blueprints}
	}
	out := make([]Reached, len(contexts))
	for i, c := range contexts {
		out[i] = g.policies.of(ctx, c)
	}
	if g.revisions.behind != nil {
		return nil, g.revisions.behind
	}
	return out, nil
}
