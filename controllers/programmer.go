package controllers

import (
	"context"

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
	"github.com/gatewright/gatewright/internal/fairness"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
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
	legacy   *apply.LegacyAdopter
	// contested holds the owners refused a name another owner holds.
	contested *contestedNames
	// namespaceBytes bounds what the Gateways and routes of a namespace hold together.
	namespaceBytes *fairness.NamespaceBytes
}

// admitBytes tells whether rec's owner may hold size bytes in its namespace, counting it
// with them at once when it may (fairness.NamespaceBytes).
func (p *programmer) admitBytes(rec *apply.Record, size int64) error {
	return p.namespaceBytes.Admit(rec.Namespace(), fairness.OwnerOf(rec.Owner()), rec.RenderedBytes, size)
}

// setUp makes the helpers the reconciler r keeps for itself and builds its controller
// from b, which watches what r reads. ownerOf maps an object rendered for an owner, or
// its Rendering, to the owner: a Rendering deleted lets the owner write a new one, and
// the kinds it renders are watched as it renders them (objectWatches).
func (p *programmer) setUp(mgr ctrl.Manager, b *builder.Builder, r reconcile.Reconciler, ownerOf handler.MapFunc) error {
	p.scopes = &ctrlutil.KindScopes{Client: p.Client}
	p.legacy = &apply.LegacyAdopter{Client: p.Client, Applier: p.Applier, Recorder: p.Recorder}
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

// gatherer gathers a reconcile's snapshots through the cache: the Secrets of
// certificateRefs and the Services of backendRefs from their own caches, and the routes
// their templates refused and the routes naming a Gateway from their indexes.
func (p *programmer) gatherer(ctx context.Context) *snapshot.Gatherer {
	return &snapshot.Gatherer{
		Reader: p.Client, ControllerNamespace: p.ControllerNamespace,
		SecretCheck: p.certificates.check(ctx), ServiceExists: serviceExists(ctx, p.services),
		RefusedRouteIndex: indexRenderingRefusedRoute, RouteParentIndex: indexRouteParent,
	}
}
