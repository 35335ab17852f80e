package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// runningRevisions finds the blueprint revision a Gateway runs as the controller does
// (apply.TargetRevision, snapshot.Running), with the caller's rights, each revision read
// once. A read they refuse falls back, and denied says so: the Gateway's Rendering to
// the blueprint's currentRevision, a revision to the blueprint's live spec.
type runningRevisions struct {
	client client.Reader
	denied *deniedReads
	read   map[revisionKey]runningBlueprint
}

type revisionKey struct {
	blueprint string
	target    int64
}

type runningBlueprint struct {
	blueprint *gatewrightv1alpha1.GatewayClassBlueprint
	revision  int64
	err       error
}

// running is the blueprint gw runs, given the live one, and its revision number; 0 for
// the live spec.
func (r *runningRevisions) running(ctx context.Context, gw *gatewayv1.Gateway, live *gatewrightv1alpha1.GatewayClassBlueprint) (*gatewrightv1alpha1.GatewayClassBlueprint, int64, error) {
	target, err := apply.TargetRevision(ctx, r.client, gw)
	if apierrors.IsForbidden(err) {
		r.denied.add("the Renderings of namespace "+gw.Namespace, fmt.Sprintf(
			"its Gateways are taken to run the current revision of GatewayClassBlueprint %s, not one a rollout assigned them", live.Name))
		target, err = 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	key := revisionKey{blueprint: live.Name, target: target}
	run, ok := r.read[key]
	if !ok {
		run.blueprint, run.revision, run.err = snapshot.Running(ctx, r.client, live, target)
		if apierrors.IsForbidden(run.err) {
			n := target
			if n == 0 {
				n = live.Status.CurrentRevision
			}
			r.denied.add("GatewayClassBlueprintRevision "+revisions.Name(live.Name, n), fmt.Sprintf(
				"computed with the live spec of GatewayClassBlueprint %s instead of revision %d", live.Name, n))
			run = runningBlueprint{blueprint: live}
		}
		if r.read == nil {
			r.read = map[revisionKey]runningBlueprint{}
		}
		r.read[key] = run
	}
	return run.blueprint, run.revision, run.err
}
