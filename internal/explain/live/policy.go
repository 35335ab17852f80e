package live

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/values"
)

// Placed is where a policy lands, as the caller's rights let it be read.
type Placed struct {
	Placement *explain.Placement
	// Refused are the reads the rights refused, each once, in order, as
	// explain.DeniedReads.Lines says them.
	Refused []string
	// Needed are those of Refused the placement depends on.
	Needed []string
}

// Policy reads the policy of kind namespace/name and explains where it lands, reading
// with the caller's rights: a cluster-wide list refused is made in the policy's
// namespace instead, and what else is refused is noted. Refused is set on an error too.
func (r Reader) Policy(ctx context.Context, kind, namespace, name string) (Placed, error) {
	source, targets, blocks, err := readPolicy(ctx, r.Client, kind, namespace, name)
	if err != nil {
		return Placed{}, err
	}
	denied := &explain.DeniedReads{}
	reach := targetReach{
		targets: &snapshot.Gatherer{Reader: rightsReader{client: r.Client, home: namespace, refusals: targetReads, denied: denied}},
		contexts: &snapshot.Gatherer{Reader: rightsReader{client: r.Client, home: namespace, refusals: policyReads, denied: denied},
			ControllerNamespace: r.ControllerNamespace, Rights: &snapshot.Rights{Refused: denied.Add}, ServesListenerSets: true, OtherRouteKinds: routes.OtherKinds},
		blueprints: &render.Cache{},
	}
	pl, err := explain.Place(source, targets, blocks, func(target gatewayv1.LocalPolicyTargetReference) (explain.Reached, error) {
		return reach.read(ctx, namespace, target)
	})
	return Placed{Placement: pl, Refused: denied.Lines(), Needed: denied.Needed(reach.gateways)}, err
}

// targetReach reads what the targets of a policy reach: whether each is accepted through
// targets, the contexts it reaches with their values through contexts. It collects the
// Gateways of the contexts reached, and the revision each was last found to run (ran),
// which a context whose values are not computed shows too.
type targetReach struct {
	targets    *snapshot.Gatherer
	contexts   *snapshot.Gatherer
	blueprints *render.Cache
	gateways   []*gatewayv1.Gateway
	ran        map[client.ObjectKey]int64
}

// read reads what target, of a policy in namespace, reaches.
func (t *targetReach) read(ctx context.Context, namespace string, target gatewayv1.LocalPolicyTargetReference) (explain.Reached, error) {
	// As the controller: a target that is not accepted has nothing enforced. A read the
	// caller may not make leaves the check to the contexts.
	if accepted, err := t.targets.TargetAccepted(ctx, namespace, target); err == nil && !accepted.OK {
		return explain.Reached{NotAccepted: &accepted}, nil
	}
	contexts, err := t.contexts.Policy(ctx, namespace, target, t.blueprints)
	if err != nil {
		return explain.Reached{}, err
	}
	if t.ran == nil {
		t.ran = map[client.ObjectKey]int64{}
	}
	reached := explain.Reached{Contexts: make([]explain.ReachedContext, len(contexts))}
	for i, c := range contexts {
		t.gateways = append(t.gateways, c.Gateway)
		key := client.ObjectKeyFromObject(c.Gateway)
		if c.Revision > 0 {
			t.ran[key] = c.Revision
		}
		reached.Contexts[i] = explain.ReachedContext{Name: c.String(), Values: c.Values, Err: c.Err, Revision: t.ran[key]}
	}
	return reached, nil
}

// readPolicy reads the policy of kind namespace/name: its source, targets and blocks.
func readPolicy(ctx context.Context, r client.Reader, kind, namespace, name string) (values.Source, []gatewayv1.LocalPolicyTargetReference, *gatewrightv1alpha1.DefaultsAndOverrides, error) {
	source := values.Source{Kind: kind, Namespace: namespace, Name: name}
	key := client.ObjectKey{Namespace: namespace, Name: name}
	if kind == gatewrightv1alpha1.KindGatewayClassConfig {
		var p gatewrightv1alpha1.GatewayClassConfig
		if err := r.Get(ctx, key, &p); err != nil {
			return source, nil, nil, fmt.Errorf("reading %s: %w", source, err)
		}
		return source, p.Spec.TargetRefs, &p.Spec.DefaultsAndOverrides, nil
	}
	var p gatewrightv1alpha1.GatewayConfig
	if err := r.Get(ctx, key, &p); err != nil {
		return source, nil, nil, fmt.Errorf("reading %s: %w", source, err)
	}
	return source, p.Spec.TargetRefs, &p.Spec.DefaultsAndOverrides, nil
}
