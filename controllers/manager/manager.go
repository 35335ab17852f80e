// Package manager runs the Gatewright controller: a controller-runtime manager with
// Gatewright's reconcilers and probes. `gatewright controller` runs it in a cluster, and
// gatewright-dev on a local control plane, with the same code.
package manager

import (
	"context"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
)

// DefaultControllerNamespace is where the install puts the controller, and so the
// namespace whose GatewayClassConfigs are global unless told otherwise.
const DefaultControllerNamespace = "gatewright-system"

// Options are what the flags of `gatewright controller` set; zero workers and limits
// are the controllers' defaults.
type Options struct {
	ControllerNamespace string
	MetricsAddress      string
	ProbeAddress        string
	PprofAddress        string
	LeaderElection      bool
	GatewayClasses      []string
	GatewayWorkers      int
	RouteWorkers        int
	PolicyWorkers       int
	RouteLimits         routing.Limits
	RenderCaps          render.Bounds
	NamespaceBytes      int64
}

// Run runs the manager until ctx ends.
func Run(ctx context.Context, cfg *rest.Config, opts Options) error {
	options := controllers.ManagerOptions()
	options.Metrics = metricsserver.Options{BindAddress: opts.MetricsAddress}
	options.HealthProbeBindAddress = opts.ProbeAddress
	options.PprofBindAddress = opts.PprofAddress
	options.LeaderElection = opts.LeaderElection
	setup := controllers.Options{
		ControllerNamespace: opts.ControllerNamespace, GatewayClasses: opts.GatewayClasses,
		GatewayWorkers: opts.GatewayWorkers, RouteWorkers: opts.RouteWorkers, PolicyWorkers: opts.PolicyWorkers,
		RouteLimits: opts.RouteLimits,
		RenderCaps:  opts.RenderCaps, MaxRenderedBytesPerNamespace: opts.NamespaceBytes,
	}
	options.LeaderElectionID = setup.LeaderElectionID()
	options.LeaderElectionNamespace = opts.ControllerNamespace
	// The process ends as soon as the manager stops, so handing the lease back at once is
	// safe, and a rolling update does not wait out the lease duration.
	options.LeaderElectionReleaseOnCancel = true
	mgr, err := ctrl.NewManager(cfg, options)
	if err != nil {
		return err
	}
	ctrl.Log.WithName("setup").Info("starting", "gatewayClasses", setup.GatewayClasses, "leaderElection", options.LeaderElection, "lease", options.LeaderElectionNamespace+"/"+options.LeaderElectionID)
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", ctrlutil.CachesSynced(mgr.GetCache())); err != nil {
		return err
	}
	if err := controllers.Setup(ctx, mgr, setup); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
