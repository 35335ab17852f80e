package main

import (
	"flag"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/controllers/manager"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/routing"
)

type controllerOptions struct {
	manager.Options
	zap zap.Options
}

func newControllerCommand() *cobra.Command {
	opts := controllerOptions{Options: manager.Options{
		ControllerNamespace: defaultControllerNamespace, MetricsAddress: ":8080", ProbeAddress: ":8081", PprofAddress: "0",
		GatewayWorkers: controllers.DefaultGatewayWorkers, RouteWorkers: controllers.DefaultRouteWorkers,
		PolicyWorkers: controllers.DefaultPolicyWorkers, RouteLimits: routing.DefaultLimits, RenderCaps: render.DefaultCaps,
		NamespaceBytes: controllers.DefaultMaxRenderedBytesPerNamespace,
	}}
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
			return manager.Run(cmd.Context(), cfg, opts.Options)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.ControllerNamespace, "controller-namespace", opts.ControllerNamespace, "the namespace whose GatewayClassConfigs are global")
	flags.StringVar(&opts.MetricsAddress, "metrics-bind-address", opts.MetricsAddress, "address of the Prometheus metrics endpoint (0 disables it)")
	flags.StringVar(&opts.ProbeAddress, "health-probe-bind-address", opts.ProbeAddress, "address of the /healthz and /readyz endpoints")
	flags.StringVar(&opts.PprofAddress, "pprof-bind-address", opts.PprofAddress, "address of Go's /debug/pprof profiles, to measure the controller's CPU and memory (0, the default, disables it)")
	flags.BoolVar(&opts.LeaderElection, "leader-elect", false, "elect a leader, so that only one of several replicas reconciles")
	flags.StringSliceVar(&opts.GatewayClasses, "gateway-classes", nil, "implement only the GatewayClasses of these names (comma-separated; default: every GatewayClass of Gatewright)")
	flags.IntVar(&opts.GatewayWorkers, "gateway-workers", opts.GatewayWorkers, "how many Gateways are reconciled at once (namespaces share them fairly; one alone gets all)")
	flags.IntVar(&opts.RouteWorkers, "route-workers", opts.RouteWorkers, "how many HTTPRoutes are reconciled at once (shared like the Gateway workers)")
	flags.IntVar(&opts.PolicyWorkers, "policy-workers", opts.PolicyWorkers, "how many GatewayClassConfigs, and how many GatewayConfigs, are judged at once for their status (shared like the Gateway workers)")
	flags.IntVar(&opts.RouteLimits.Routes, "max-routes-per-gateway", opts.RouteLimits.Routes, "how many routes, of every kind, one Gateway serves; past it the newest are refused on their own status")
	flags.IntVar(&opts.RouteLimits.Bytes, "max-route-bytes-per-gateway", opts.RouteLimits.Bytes, "how many bytes of route specs (as JSON) one Gateway serves together; past it the newest routes are refused on their own status")
	flags.IntVar(&opts.RouteLimits.Entries, "max-route-table-entries-per-gateway", opts.RouteLimits.Entries, "how many matches one Gateway's route table holds, each counted once per listener and hostname of its route; past it the newest routes are refused on their own status")
	flags.Int64Var(&opts.NamespaceBytes, "max-rendered-bytes-per-namespace", opts.NamespaceBytes, "how many bytes (as JSON) the objects and effective values of a namespace's Gateways and routes hold together; a Gateway whose render would pass it is refused on its own status (Programmed=False), a route on its own parent status (Accepted=False), and each keeps the objects applied before")
	bindRenderCapFlags(flags, &opts.RenderCaps)
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
