package main

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/revisions"
	"github.com/gatewright/gatewright/internal/snapshot"
)

// objectJudge judges the objects a record lists as the controller does (ready), or
// says why it cannot (err).
type objectJudge struct {
	ready render.TemplateReadiness
	err   error
}

func unjudged(err error) objectJudge { return objectJudge{err: err} }

// judge is how the controller judges the objects of a Gateway (route false) or of a
// route on it whose record says revision of blueprint rendered them: by the readyWhen
// of the template the record names for each object, in that revision, else by kstatus.
// The template comes from Gatewright's record, never from the live object's labels,
// which whoever may edit the object may change. Without the blueprint or the revision,
// nothing is judged: a readiness by kstatus alone could call ready an object whose
// readyWhen is false.
func (r treeReader) judge(ctx context.Context, blueprint *gatewrightv1alpha1.GatewayClassBlueprint, revision int64, routeKind string) objectJudge {
	if blueprint == nil {
		return unjudged(fmt.Errorf("the Gateway's class names no GatewayClassBlueprint that exists"))
	}
	spec := blueprint
	if revision > 0 {
		rev := &gatewrightv1alpha1.GatewayClassBlueprintRevision{}
		name := revisions.Name(blueprint.Name, revision)
		if err := r.client.Get(ctx, client.ObjectKey{Name: name}, rev); err != nil {
			return unjudged(fmt.Errorf("reading GatewayClassBlueprintRevision %s (revision %d, which rendered the objects): %w", name, revision, err))
		}
		if rev.Blueprint != blueprint.Name || rev.Revision != revision {
			return unjudged(fmt.Errorf("GatewayClassBlueprintRevision %s is revision %d of %s, not %d of %s", name, rev.Revision, rev.Blueprint, revision, blueprint.Name))
		}
		spec = snapshot.AsRevision(blueprint, rev)
	}
	parsed, err := r.blueprints.Get(spec)
	if err != nil {
		return unjudged(fmt.Errorf("GatewayClassBlueprint %s: %w", blueprint.Name, err))
	}
	return objectJudge{ready: parsed.Readiness(routeKind, apply.Readiness)}
}
