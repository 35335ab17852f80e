// Package controllers holds the reconcilers and their watches: thin glue that reads a
// snapshot (internal/snapshot), runs the pipeline (internal/translate), applies
// (internal/apply) and writes status. Each reconciler has its files (<kind>_*.go); what
// several share lives in a file named for what it is (indexes.go, class_lookups.go,
// object_watches.go, grants.go, policies.go, programmer.go), and the machinery that knows
// nothing of Gatewright's domain in internal/ctrlutil.
package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/render"
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
		DefaultTransform:     trimForCache,
		DefaultLabelSelector: labels.NewSelector().Add(*managed),
		ByObject: map[client.Object]cache.ByObject{
			&gatewayv1.GatewayClass{}:                   all,
			&gatewayv1.Gateway{}:                        all,
			&gatewayv1.HTTPRoute{}:                      all,
			&gatewayv1.ReferenceGrant{}:                 all,
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
	if err := addIndexes(ctx, mgr); err != nil {
		return err
	}
	shard := newShard(opts.GatewayClasses)
	blueprints := &render.Cache{Caps: opts.RenderCaps}
	applier, err := apply.NewIndexed(ctx, mgr.GetClient(), mgr.GetAPIReader(), mgr.GetFieldIndexer())
	if err != nil {
		return err
	}
	recorder := ctrlutil.CappedRecorder{EventRecorder: mgr.GetEventRecorderFor("gatewright")}
	judge := fleetJudge{Client: mgr.GetClient(), Blueprints: blueprints, Recorder: recorder, shard: shard}
	if err := (&BlueprintReconciler{fleetJudge: judge, ControllerNamespace: opts.ControllerNamespace}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&GatewayClassReconciler{fleetJudge: judge}).SetupWithManager(mgr); err != nil {
		return err
	}
	for _, kind := range []string{gatewrightv1alpha1.KindGatewayClassConfig, gatewrightv1alpha1.KindGatewayConfig} {
		if err := (&PolicyReconciler{
			Client: mgr.GetClient(), ControllerNamespace: opts.ControllerNamespace, Blueprints: blueprints, Kind: kind, Recorder: recorder, shard: shard,
			Workers: orDefault(opts.PolicyWorkers, DefaultPolicyWorkers),
		}).SetupWithManager(mgr); err != nil {
			return err
		}
	}
	if err := (&NamespaceReconciler{Client: mgr.GetClient(), shard: shard}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&RenderingReconciler{Client: mgr.GetClient(), Applier: applier, shard: shard}).SetupWithManager(mgr); err != nil {
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
	programming := programmer{
		Client: mgr.GetClient(), Applier: applier, Blueprints: blueprints, Recorder: recorder,
		ControllerNamespace: opts.ControllerNamespace, shard: shard, certificates: certificates, services: services,
	}
	namespaceBytes := newNamespaceBytes(opts.MaxRenderedBytesPerNamespace)
	if err := namespaceBytes.watch(ctx, mgr); err != nil {
		return err
	}
	routes := &HTTPRouteReconciler{programmer: programming}
	gateways := &GatewayReconciler{programmer: programming, routeLimits: opts.RouteLimits, namespaceBytes: namespaceBytes}
	routes.Workers = orDefault(opts.RouteWorkers, DefaultRouteWorkers)
	gateways.Workers = orDefault(opts.GatewayWorkers, DefaultGatewayWorkers)
	if err := routes.SetupWithManager(mgr); err != nil {
		return err
	}
	if err := gateways.SetupWithManager(mgr); err != nil {
		return err
	}
	// Collectors that read the cache when scraped, while this instance leads.
	for _, collector := range []leaderCollector{
		&gatewayConditions{reader: mgr.GetClient(), shard: shard},
		&blueprintRollouts{reader: mgr.GetClient(), shard: shard},
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
