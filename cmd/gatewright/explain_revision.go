package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// runningRevisions finds the blueprint revision a Gateway runs as the controller does
// (its Rendering's targetRevision, snapshot.Running), with the caller's rights: the
// Renderings of Gateways are listed once per namespace, not read once per Gateway, and
// each revision read once. A read they refuse falls back, and denied says so: the
// Renderings to the blueprint's currentRevision, a revision to the blueprint's live spec.
type runningRevisions struct {
	client client.Reader
	denied *deniedReads
	// strict returns a refused read as the error it is, instead of falling back: the
	// explanation of one Gateway then comes from its record, which the controller wrote
	// with the revision it really runs.
	strict  bool
	targets map[string]map[string]int64 // by namespace and Gateway name
	read    snapshot.RevisionReads
	// ran is the revision each Gateway was last found to run, 0 for the live spec.
	ran map[client.ObjectKey]int64
}

// running is the revision of live, the blueprint, that gw runs; nil for the live spec.
func (r *runningRevisions) running(ctx context.Context, gw *gatewayv1.Gateway, live *gatewrightv1alpha1.GatewayClassBlueprint) (*gatewrightv1alpha1.GatewayClassBlueprintRevision, error) {
	targets, err := r.targetsIn(ctx, gw.Namespace)
	if err != nil {
		return nil, err
	}
	target := targets[gw.Name]
	rev, err := r.read.Running(ctx, r.client, live, target)
	if apierrors.IsForbidden(err) && r.strict {
		return nil, fmt.Errorf("reading GatewayClassBlueprintRevision %s (the revision the Gateway runs): %w", revisions.Name(live.Name, snapshot.RunningNumber(live, target)), err)
	}
	if apierrors.IsForbidden(err) {
		n := snapshot.RunningNumber(live, target)
		r.denied.add("GatewayClassBlueprintRevision "+revisions.Name(live.Name, n), fmt.Sprintf(
			"computed with the live spec of GatewayClassBlueprint %s instead of revision %d", live.Name, n))
		rev, err = nil, nil
	}
	if r.ran == nil {
		r.ran = map[client.ObjectKey]int64{}
	}
	if rev != nil {
		r.ran[client.ObjectKeyFromObject(gw)] = rev.Revision
	}
	return rev, err
}

// of is the revision gw was last found to run; 0 for the live spec, or with no r.
func (r *runningRevisions) of(gw *gatewayv1.Gateway) int64 {
	if r == nil {
		return 0
	}
	return r.ran[client.ObjectKeyFromObject(gw)]
}

// targetsIn are the revisions rollouts assigned the Gateways of namespace, by name, as
// their Renderings (part 0, apply.GatewayOf) say; none when the caller may not list them.
func (r *runningRevisions) targetsIn(ctx context.Context, namespace string) (map[string]int64, error) {
	if targets, ok := r.targets[namespace]; ok {
		return targets, nil
	}
	ofGateways, err := labels.NewRequirement(gatewrightv1alpha1.LabelHTTPRouteName, selection.DoesNotExist, nil)
	if err != nil {
		return nil, err
	}
	var list gatewrightv1alpha1.RenderingList
	err = r.client.List(ctx, &list, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*ofGateways)})
	if apierrors.IsForbidden(err) && r.strict {
		return nil, fmt.Errorf("listing the Renderings of namespace %s (which revision a rollout assigned its Gateways): %w", namespace, err)
	}
	if apierrors.IsForbidden(err) {
		r.denied.add("the Renderings of namespace "+namespace,
			"its Gateways are taken to run their blueprint's currentRevision, not one a rollout assigned them")
	} else if err != nil {
		return nil, err
	}
	targets := map[string]int64{}
	for i := range list.Items {
		if key, ok := apply.GatewayOf(&list.Items[i]); ok && list.Items[i].TargetRevision > 0 {
			targets[key.Name] = list.Items[i].TargetRevision
		}
	}
	if r.targets == nil {
		r.targets = map[string]map[string]int64{}
	}
	r.targets[namespace] = targets
	return targets, nil
}
