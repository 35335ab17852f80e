package main

import (
	"context"
	"flag"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
)

type controllerOptions struct {
	controllerNamespace string
	metricsAddress      string
	probeAddress        string
	pprofAddress        string
	leaderElection      bool
	gatewayClasses      []string
	gatewayWorkers      int
	routeWorkers        int
	policyWorkers       int
	routeLimits         routing.Limits
	renderCaps          render.Bounds
	namespaceBytes      int64
	zap                 zap.Options
}

func newControllerCommand() *cobra.Command {
	opts := controllerOptions{
		controllerNamespace: defaultControllerNamespace, metricsAddress: ":8080", probeAddress: ":8081", pprofAddress: "0",
		gatewayWorkers: controllers.DefaultGatewayWorkers, routeWorkers: controllers.DefaultRouteWorkers,
		policyWorkers: controllers.DefaultPolicyWorkers, routeLimits: routing.DefaultLimits, renderCaps: render.DefaultCaps,
		namespaceBytes: controllers.DefaultMaxRenderedBytesPerNamespace,
	}
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the Gatewright controller",
		Long: `controller runs the reconcilers for the GatewayClasses whose controllerName is
gatewright.dev/gateway-controller, against the cluster of the current kubeconfig (or the
in-cluster configuration).

--gateway-classes restricts it to some of those classes, so that a large cluster can run
one Deployment per set of classes. The sets of the Deployments must not overlap, and
together they must list every class; each set elects its leader with a lease of its own.

The --max-render-* flags cap what a blueprint's renderLimits may ask: a render gets a
base, and an allowance for every route match it is given, each at most its cap. A
blueprint asking more gets the cap, and its Linted condition says so.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			collectGarbageSooner()
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts.zap)))
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return err
			}
			return runController(cmd.Context(), cfg, opts)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.controllerNamespace, "controller-namespace", opts.controllerNamespace, "the namespace whose GatewayClassConfigs are global")
	flags.StringVar(&opts.metricsAddress, "metrics-bind-address", opts.metricsAddress, "address of the Prometheus metrics endpoint (0 disables it)")
	flags.StringVar(&opts.probeAddress, "health-probe-bind-address", opts.probeAddress, "address of the /healthz and /readyz endpoints")
	flags.StringVar(&opts.pprofAddress, "pprof-bind-address", opts.pprofAddress, "address of Go's /debug/pprof profiles, to measure the controller's CPU and memory (0, the default, disables it)")
	flags.BoolVar(&opts.leaderElection, "leader-elect", false, "elect a leader, so that only one of several replicas reconciles")
	flags.StringSliceVar(&opts.gatewayClasses, "gateway-classes", nil, "implement only the GatewayClasses of these names (comma-separated; default: every GatewayClass of Gatewright)")
	flags.IntVar(&opts.gatewayWorkers, "gateway-workers", opts.gatewayWorkers, "how many Gateways are reconciled at once (namespaces share them fairly; one alone gets all)")
	flags.IntVar(&opts.routeWorkers, "route-workers", opts.routeWorkers, "how many HTTPRoutes are reconciled at once (shared like the Gateway workers)")
	flags.IntVar(&opts.policyWorkers, "policy-workers", opts.policyWorkers, "how many GatewayClassConfigs, and how many GatewayConfigs, are judged at once for their status (shared like the Gateway workers)")
	flags.IntVar(&opts.routeLimits.Routes, "max-routes-per-gateway", opts.routeLimits.Routes, "how many routes one Gateway serves; past it the newest are refused on their own status")
	flags.IntVar(&opts.routeLimits.Bytes, "max-route-bytes-per-gateway", opts.routeLimits.Bytes, "how many bytes of route specs (as JSON) one Gateway serves together; past it the newest routes are refused on their own status")
	flags.IntVar(&opts.routeLimits.Entries, "max-route-table-entries-per-gateway", opts.routeLimits.Entries, "how many matches one Gateway's route table holds, each counted once per listener and hostname of its route; past it the newest routes are refused on their own status")
	flags.Int64Var(&opts.namespaceBytes, "max-rendered-bytes-per-namespace", opts.namespaceBytes, "how many bytes (as JSON) the objects and effective values of a namespace's Gateways hold together; a Gateway whose render would pass it is refused on its own status (Programmed=False), and keeps the objects applied before")
	bindRenderCapFlags(flags, &opts.renderCaps)
	bindLogFlags(flags, &opts.zap)
	return cmd
}

// bindRenderCapFlags adds the flags that cap the renderLimits of blueprints.
func bindRenderCapFlags(flags *pflag.FlagSet, caps *render.Bounds) {
	for _, a := range []struct {
		allowance *render.Allowance
		suffix    string
		of        string
	}{{&caps.Base, "", "a render"}, {&caps.PerRouteMatch, "-per-route-match", "a render for every route match it is given"}} {
		flags.IntVar(&a.allowance.Operations, "max-render-operations"+a.suffix, a.allowance.Operations, "the most operations (function calls, range iterations, {{ template }}s) a blueprint's renderLimits may give "+a.of)
		flags.IntVar(&a.allowance.BuiltBytes, "max-render-built-bytes"+a.suffix, a.allowance.BuiltBytes, "the most bytes built by template functions, added up, a blueprint's renderLimits may give "+a.of)
		flags.IntVar(&a.allowance.RenderedBytes, "max-render-rendered-bytes"+a.suffix, a.allowance.RenderedBytes, "the most bytes written a blueprint's renderLimits may give "+a.of)
		flags.DurationVar(&a.allowance.Time, "max-render-time"+a.suffix, a.allowance.Time, "the most time a blueprint's renderLimits may give "+a.of)
	}
}

// bindLogFlags adds controller-runtime's --zap-* flags, with one default changed: no
// stack traces below panic. controller-runtime logs every failed reconcile at error
// level, and zap adds a stack trace to error lines by default; reconciles fail on the
// mistakes of providers and tenants (a CRD not installed yet, an apply refused) and are
// retried with backoff, so each retry would print the same trace of controller-runtime's
// own frames. --zap-stacktrace-level=error brings the traces back.
func bindLogFlags(flags *pflag.FlagSet, o *zap.Options) {
	o.StacktraceLevel = zapcore.PanicLevel
	zapFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	o.BindFlags(zapFlags)
	flags.AddGoFlagSet(zapFlags)
}

// controllerGCPercent is the garbage collector's target unless GOGC says otherwise. The
// controller's heap is mostly its caches, which live long; Go's default of 100 lets the
// heap grow to twice them between collections. At 75, 1,000 Gateways took 85 to 89 MiB
// and 6.9 to 7.4 CPU seconds, against 82 to 83 MiB and 8.2 to 8.5 s at 50
// (test/bench/RESULTS.md).
const controllerGCPercent = 75

func collectGarbageSooner() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(controllerGCPercent)
	}
}

// runController runs the manager until ctx ends.
func runController(ctx context.Context, cfg *rest.Config, opts controllerOptions) error {
	options := controllers.ManagerOptions()
	options.Metrics = metricsserver.Options{BindAddress: opts.metricsAddress}
	options.HealthProbeBindAddress = opts.probeAddress
	options.PprofBindAddress = opts.pprofAddress
	options.LeaderElection = opts.leaderElection
	setup := controllers.Options{
		ControllerNamespace: opts.controllerNamespace, GatewayClasses: opts.gatewayClasses,
		GatewayWorkers: opts.gatewayWorkers, RouteWorkers: opts.routeWorkers, PolicyWorkers: opts.policyWorkers,
		RouteLimits: opts.routeLimits,
		RenderCaps:  opts.renderCaps, MaxRenderedBytesPerNamespace: opts.namespaceBytes,
	}
	options.LeaderElectionID = setup.LeaderElectionID()
	options.LeaderElectionNamespace = opts.controllerNamespace
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
