// Package controllers holds the reconcilers and their watches: thin glue that reads a
// snapshot (internal/snapshot), runs the pipeline (internal/translate), applies
// (internal/apply) and writes status. Each reconciler has its files (<kind>_*.go); what
// several share lives in a file named for what it is: indexes.go (the field indexes and
// the lookups through them), filters.go (the event filters), shard.go, caches.go,
// programmer.go (what the Gateway and route reconcilers share),
// rendered_watches.go (the watches of rendered objects and of names refused), and
// outcomes.go (how a round's error is classified and told in events, logs and metrics).
// The machinery that knows nothing of Gatewright's domain lives in internal/ctrlutil.
package controllers

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/fairness"
	"github.com/gatewright/gatewright/internal/metrics"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/scheme"
)

// Options configure the reconcilers.
type Options struct {
	// ControllerNamespace holds the global GatewayClassConfigs.
	ControllerNamespace string
	// GatewayClasses restricts this instance to the GatewayClasses of these names, so that
	// a large cluster can run one Deployment per set of classes. Empty: every GatewayClass
	// whose controllerName is Gatewright's. The sets of all instances must not overlap.
	GatewayClasses []string
	// GatewayWorkers, RouteWorkers and PolicyWorkers are how many Gateways, HTTPRoutes
	// and policies of each kind are reconciled at once; zero means DefaultGatewayWorkers,
	// DefaultRouteWorkers and DefaultPolicyWorkers.
	GatewayWorkers, RouteWorkers, PolicyWorkers int
	// RouteLimits bound the routes one Gateway serves; unset bounds are the defaults.
	RouteLimits routing.Limits
	// RenderCaps cap the renderLimits of blueprints; a field that is not positive is
	// render.DefaultCaps'.
	RenderCaps render.Bounds
	// MaxRenderedBytesPerNamespace bounds the bytes of JSON of the objects and values
	// that the Gateways of one namespace hold together; zero means
	// DefaultMaxRenderedBytesPerNamespace.
	MaxRenderedBytesPerNamespace int64
}

// DefaultMaxRenderedBytesPerNamespace bounds what the Gateways of one namespace hold
// together: the bytes of JSON of their rendered objects and of their effective values.
// Whatever the controller's cache holds of them (apply.StripContent), etcd holds them
// whole, as many times as there are Gateways: a tenant's 300-byte Gateway may carry a
// blueprint's megabyte of configuration. 256 MiB is some 6,000 times what a Gateway of
// the benchmark's fleets holds (about 4 KiB), and 40 times the ConfigMap of a Gateway of
// 5,000 routes; an etcd of the default 2 GiB quota holds eight such namespaces.
const DefaultMaxRenderedBytesPerNamespace = 256 << 20

// LeaderElectionID is the name of the lease that the replicas of an instance with these
// options elect their leader with; it differs for every set of GatewayClasses.
func (o Options) LeaderElectionID() string {
	return newShard(o.GatewayClasses).leaseName()
}

// ManagerOptions are the manager options the reconcilers rely on: the scheme, a cache
// that serves unstructured objects too, and events whose budget is kept per reason
// (ctrlutil.NewEventBroadcaster), so that events tenants cause cannot crowd out a
// provider's rollout events.
func ManagerOptions() ctrl.Options {
	return ctrl.Options{
		Scheme: scheme.New(),
		// Deprecated in controller-runtime only for its new events API, which Gatewright
		// does not use; it is the one way to set the old API's correlator.
		EventBroadcaster: ctrlutil.NewEventBroadcaster(), //nolint:staticcheck
		Cache:            cacheOptions(),
		Client:           client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	}
}

// cacheOptions make the manager's cache hold every object of the kinds Gatewright
// reads, but of every other kind (the objects it renders) only those it manages.
// Services, read as metadata for backendRefs, and Secrets, read as metadata for
// certificateRefs, have caches of their own (newServiceMetadataCache,
// newSecretMetadataCache).
func cacheOptions() cache.Options {
	managed, _ := labels.NewRequirement(gatewrightv1alpha1.LabelManagedBy, selection.Equals, []string{gatewrightv1alpha1.ManagedByValue})
	all := cache.ByObject{Label: labels.Everything()}
	return cache.Options{
		DefaultTransform:     apply.TrimForCache,
		DefaultLabelSelector: labels.NewSelector().Add(*managed),
		ByObject: map[client.Object]cache.ByObject{
			&gatewayv1.GatewayClass{}:                   all,
			&gatewayv1.Gateway{}:                        all,
			&gatewayv1.HTTPRoute{}:                      all,
			&gatewayv1.GRPCRoute{}:                      all,
			&gatewayv1.TLSRoute{}:                       all,
			&gatewayv1.TCPRoute{}:                       all,
			&gatewayv1.UDPRoute{}:                       all,
			&gatewayv1.ReferenceGrant{}:                 all,
			&gatewayv1.ListenerSet{}:                    all,
			&corev1.Namespace{}:                         all,
			&gatewrightv1alpha1.GatewayClassBlueprint{}: all,
			&gatewrightv1alpha1.GatewayClassConfig{}:    all,
			&gatewrightv1alpha1.GatewayConfig{}:         all,
		},
	}
}

// Setup registers every reconciler with mgr, and the collector of the gatewright_gateways
// metric.
func Setup(ctx context.Context, mgr ctrl.Manager, opts Options) error {
	routeKinds, err := servedRouteKinds(mgr.GetRESTMapper())
	if err != nil {
		return err
	}
	listenerSets, err := servesListenerSets(mgr.GetRESTMapper())
	if err != nil {
		return err
	}
	if err := addIndexes(ctx, mgr, routeKinds, listenerSets); err != nil {
		return err
	}
	shard := newShard(opts.GatewayClasses)
	blueprints := &render.Cache{Caps: opts.RenderCaps}
	applier, err := apply.NewIndexed(ctx, mgr.GetClient(), mgr.GetAPIReader(), mgr.GetFieldIndexer())
	if err != nil {
		return err
	}
	recorder := ctrlutil.CappedRecorder{EventRecorder: mgr.GetEventRecorderFor("gatewright")}
	judge := fleetJudge{Client: mgr.GetClient(), Blueprints: blueprints, Recorder: recorder, routeKinds: routeKinds, shard: shard}
	if err := (&BlueprintReconciler{fleetJudge: judge, ControllerNamespace: opts.ControllerNamespace}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&GatewayClassReconciler{fleetJudge: judge}).SetupWithManager(mgr); err != nil {
		return err
	}
	// What the Gateway reconciler keeps of each Gateway's routes, which the policies'
	// judgements read too.
	tables := &tableMemos{}
	// The HTTPRoutes that name each Gateway, as the cache holds them, which both read.
	httpRoutes, err := newRouteParentIndex(ctx, mgr.GetCache())
	if err != nil {
		return err
	}
	for _, kind := range []string{gatewrightv1alpha1.KindGatewayClassConfig, gatewrightv1alpha1.KindGatewayConfig} {
		if err := (&PolicyReconciler{
			Client: mgr.GetClient(), ControllerNamespace: opts.ControllerNamespace, Blueprints: blueprints, Kind: kind, Recorder: recorder, shard: shard,
			Workers: orDefault(opts.PolicyWorkers, DefaultPolicyWorkers), RouteKinds: routeKinds, listenerSets: listenerSets, tables: tables, httpRoutes: httpRoutes,
		}).SetupWithManager(mgr); err != nil {
			return err
		}
	}
	if err := (&NamespaceReconciler{Client: mgr.GetClient(), shard: shard}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&RenderingReconciler{Client: mgr.GetClient(), Applier: applier, routeKinds: routeKinds, shard: shard}).SetupWithManager(mgr); err != nil {
		return err
	}
	certificates, err := newCertificateSecrets(mgr)
	if err != nil {
		return err
	}
	services, err := newServiceMetadataCache(mgr)
	if err != nil {
		return err
	}
	maxBytes := opts.MaxRenderedBytesPerNamespace
	if maxBytes <= 0 {
		maxBytes = DefaultMaxRenderedBytesPerNamespace
	}
	namespaceBytes := fairness.NewNamespaceBytes(maxBytes)
	renderings, err := mgr.GetCache().GetInformer(ctx, &gatewrightv1alpha1.Rendering{})
	if err != nil {
		return err
	}
	if err := namespaceBytes.Watch(renderings); err != nil {
		return err
	}
	programming := programmer{
		Client: mgr.GetClient(), Applier: applier, Blueprints: blueprints, Recorder: recorder,
		ControllerNamespace: opts.ControllerNamespace, shard: shard, certificates: certificates, services: services,
		namespaceBytes: namespaceBytes,
	}
	for _, kind := range routeKinds {
		reconciler := &RouteReconciler{programmer: programming, Kind: kind, listenerSets: listenerSets,
			kindConflicts: slices.Contains(routeKinds, routes.KindHTTPRoute) && slices.Contains(routeKinds, routes.KindGRPCRoute)}
		reconciler.Workers = orDefault(opts.RouteWorkers, DefaultRouteWorkers)
		if err := reconciler.SetupWithManager(mgr); err != nil {
			return err
		}
	}
	gateways := &GatewayReconciler{programmer: programming, routeLimits: opts.RouteLimits, routeKinds: routeKinds, listenerSets: listenerSets, tables: tables,
		routePace: ctrlutil.Pace{Every: routeRenderSpacing}, httpRoutes: httpRoutes}
	gateways.Workers = orDefault(opts.GatewayWorkers, DefaultGatewayWorkers)
	if err := gateways.SetupWithManager(mgr); err != nil {
		return err
	}
	if listenerSets {
		if err := (&ListenerSetReconciler{Client: mgr.GetClient(), shard: shard}).SetupWithManager(mgr); err != nil {
			return err
		}
	}
	// Collectors that read the cache when scraped, while this instance leads.
	for _, collector := range []*metrics.CacheCollector{
		metrics.GatewayConditions(mgr.GetClient(), func(class *gatewayv1.GatewayClass) bool { return shard.ownership(class) == ownedHere }),
		metrics.BlueprintRollouts(mgr.GetClient(), func(ctx context.Context) (bool, error) { return shard.primary(ctx, mgr.GetClient()) }),
	} {
		if err := mgr.Add(collector); err != nil {
			return err
		}
		if err := ctrlmetrics.Registry.Register(collector); err != nil {
			return err
		}
	}
	return nil
}

// DefaultGatewayWorkers is how many Gateways are reconciled at once unless told
// otherwise. A reconcile spends most of its time waiting on the API server, not on CPU,
// so there can be more workers than cores; the API server's capacity is the limit.
const DefaultGatewayWorkers = 16

// DefaultRouteWorkers is how many routes of each kind are reconciled at once unless told
// otherwise.
const DefaultRouteWorkers = 8

// DefaultPolicyWorkers is how many GatewayClassConfigs, and how many GatewayConfigs, are
// judged at once unless told otherwise: enough that a tenant's policies over many
// Gateways leave another tenant's a worker.
const DefaultPolicyWorkers = 4

// reconcileTimeout ends a reconcile that waits too long on the API server or a cache,
// so that no read can hold a worker forever.
const reconcileTimeout = 2 * time.Minute

func orDefault(n, otherwise int) int {
	if n > 0 {
		return n
	}
	return otherwise
}

// fairlyShared are the options of a controller of workers whose queue shares them
// fairly among namespaces.
func fairlyShared(workers int) controller.Options {
	return controller.Options{MaxConcurrentReconciles: workers, NewQueue: ctrlutil.FairQueue(workers), ReconciliationTimeout: reconcileTimeout}
}

// servedRouteKinds are the standard route kinds the API server serves at
// gateway.networking.k8s.io/v1: a cluster with Gateway API CRDs older than the ones
// Gatewright pins may lack some, and a watch of a kind that is not served would keep
// the controller from starting. HTTPRoute is always among them.
func servedRouteKinds(mapper meta.RESTMapper) ([]string, error) {
	var kinds []string
	for _, kind := range routes.Kinds {
		_, err := mapper.RESTMapping(schema.GroupKind{Group: gatewayv1.GroupName, Kind: kind}, gatewayv1.GroupVersion.Version)
		switch {
		case err == nil:
			kinds = append(kinds, kind)
		case meta.IsNoMatchError(err) && kind != routes.KindHTTPRoute:
		default:
			return nil, err
		}
	}
	return kinds, nil
}

// otherRouteKinds are, of kinds, those besides HTTPRoute.
func otherRouteKinds(kinds []string) []string {
	return slices.DeleteFunc(slices.Clone(kinds), func(kind string) bool { return kind == routes.KindHTTPRoute })
}

// servesListenerSets tells whether the API server serves ListenerSets: a cluster whose
// Gateway API predates them has Gateways that take none, and nothing to watch.
func servesListenerSets(mapper meta.RESTMapper) (bool, error) {
	_, err := mapper.RESTMapping(schema.GroupKind{Group: gatewayv1.GroupName, Kind: "ListenerSet"}, gatewayv1.GroupVersion.Version)
	if meta.IsNoMatchError(err) {
		return false, nil
	}
	return err == nil, err
}
