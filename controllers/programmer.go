package controllers

import (
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/render"
)

// programmer is what the Gateway and HTTPRoute reconcilers share: both translate a
// snapshot, apply its objects with a Rendering as their record, and watch the kinds
// they render.
type programmer struct {
	client.Client
	Applier             *apply.Applier
	Blueprints          *render.Cache
	Recorder            record.EventRecorder
	ControllerNamespace string
	// Workers is how many reconciles run at once.
	Workers int

	shard        shard
	certificates *certificateSecrets
	// services caches the metadata of every Service, for backendRefs.
	services cache.Cache
	watches  *objectWatches
	scopes   *ctrlutil.KindScopes
	legacy   *legacyAdopter
	// contested holds the owners refused a name another owner holds.
	contested *contestedNames
}

// setUp makes the helpers the reconciler r keeps for itself and builds its controller
// from b, which watches what r reads. ownerOf maps an object rendered for an owner, or
// its Rendering, to the owner: a Rendering deleted lets the owner write a new one, and
// the kinds it renders are watched as it renders them (objectWatches).
func (p *programmer) setUp(mgr ctrl.Manager, b *builder.Builder, r reconcile.Reconciler, ownerOf handler.MapFunc) error {
	p.scopes = &ctrlutil.KindScopes{Client: p.Client}
	p.legacy = &legacyAdopter{client: p.Client, applier: p.Applier, recorder: p.Recorder}
	p.contested = newContestedNames()
	c, err := b.
		Watches(&gatewrightv1alpha1.Rendering{}, ctrlutil.MapTo(ownerOf), builder.WithPredicates(ctrlutil.Deleted)).
		Watches(&gatewrightv1alpha1.Rendering{}, p.contested.releasedByRenderings()).
		WithOptions(fairlyShared(p.Workers)).
		Build(ctrlutil.RetryingConflicts(r, staleRecord))
	if err != nil {
		return err
	}
	p.watches = newObjectWatches(c, mgr.GetCache(), ownerOf, p.Applier, p.contested)
	return nil
}
