// Command bench measures the shipped Gatewright controller against a purpose-built floor
// on the same work, each on a fresh local control plane (kube-apiserver and etcd): it
// creates N Gateways of a blueprint of 3 ConfigMaps, a Secret and a ClusterIP Service
// (whose clusterIP becomes the address), over 10 namespaces with a global and a
// per-namespace policy, 8 at a time, and prints for both the time until all are
// Programmed, the requests the API server saw from each controller (counted in its audit
// log) per Gateway until they settle and in a steady window, the controller's peak RSS
// and the CPU time of the controller and of the API server. With -change, once the
// Gateways have settled it makes one change (change.go) that the floor makes too, and
// prints what it cost until every changed object was applied and the controller quiet.
// With -restart, it then restarts the controller over the settled fleet (restart.go).
//
//	go run ./test/bench -gateways 100 -steady 60s    # make bench N=100
//	go run ./test/bench -gateways 1000 -change blueprint -rollout waves
//
// Gatewright runs as `gatewright controller` with its default flags (but for the two
// listen addresses, which take free ports), built as the Dockerfile builds it unless
// -gatewright names a binary. The floor is this binary run as `bench floor-controller`.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"go.uber.org/zap/zapcore"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/gatewright/gatewright/internal/controlplane"
	"github.com/gatewright/gatewright/test/testenv"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == floorCommand {
		if err := runFloor(ctrl.SetupSignalHandler(), os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	s := settings{}
	flag.IntVar(&s.gateways, "gateways", 100, "how many Gateways to create")
	flag.IntVar(&s.namespaces, "namespaces", 10, "how many namespaces to spread them over, each with a policy")
	flag.IntVar(&s.parallel, "parallel", 8, "how many Gateways to create at once")
	flag.DurationVar(&s.settle, "settle", 10*time.Second, "the creation window ends once the controller has sent nothing but watches for this long after every Gateway is Programmed")
	flag.DurationVar(&s.settleMax, "settle-max", 5*time.Minute, "end the creation window this long after every Gateway is Programmed even if the controller is still busy")
	flag.DurationVar(&s.steady, "steady", 60*time.Second, "how long to count requests in the steady state after that")
	flag.BoolVar(&s.keep, "keep", false, "keep each run's folder (audit log, controller log, kubeconfig)")
	flag.StringVar(&s.profileDir, "apiserver-profile", "", "write CPU profiles of the API server, from the first Gateway created until all are Programmed, and with -change from the change until every changed object is applied, into this folder (read a run's with go tool pprof -top DIR/round1-gatewright-apiserver-*.pprof, DIR/round1-gatewright-change-apiserver-*.pprof)")
	changeFlag := flag.String("change", "", "once the Gateways have settled, make one change and measure it until every changed object is applied and the controller is quiet: blueprint (a key added to one ConfigMap template), classconfig (a default of the global GatewayClassConfig that changes one ConfigMap) or gatewayconfig (one namespace's GatewayConfig, the same way)")
	flag.BoolVar(&s.floorCachesChildren, "floor-caches-children", false, "the floor caches the children it applies (by Gatewright's managed-by label, as Gatewright does), to compare memory with a controller that holds the same objects; it then receives their watch events too")
	flag.BoolVar(&s.restart, "restart", false, "once the Gateways have settled (and after the change, if any), stop the controller (SIGTERM) and start it again with the same flags, and measure until it has reconciled every Gateway and is quiet")
	rolloutFlag := flag.String("rollout", string(rolloutAllAtOnce), "with -change, the blueprint's rollout strategy: allatonce or waves (the controller's default: 1, 10%, 50%, 100%, 30 s soaks)")
	flag.IntVar(&s.valuesBytes, "values-bytes", 0, "the large-values shape (with -only gatewright): each Gateway's values carry this many bytes (half from a global policy, half from its namespace's), which the blueprint renders into one more ConfigMap; at the end, print what the API server holds")
	timeout := flag.Duration("timeout", time.Hour, "give up after this long")
	binary := flag.String("gatewright", "", "the gatewright binary to measure (default: build ./cmd/gatewright as the Dockerfile does)")
	only := flag.String("only", "", "measure only floor or gatewright")
	output := flag.String("o", "table", "output format: table or json (one document per round)")
	flag.IntVar(&s.routes, "routes", 0, "the routes shape: one Gateway (-gateways is 1), and once it is Programmed this many HTTPRoutes over the namespaces, -parallel at a time; measured until every route is Accepted and the Gateway's routes ConfigMap holds it, then one route's path is changed (-route-edits times) and measured until applied")
	flag.IntVar(&s.routeEdits, "route-edits", 5, "with -routes, how many times one route's path is changed, one edit after the controller is quiet after the last; the edit's time is their median")
	recordWrites := flag.Int("record-cost", 0, "instead of a run, measure what one write of a Gateway's record costs the API server in the shapes Gatewright and the floor write it, over this many Gateways, and exit")
	rounds := flag.Int("rounds", 1, "measure the contenders this many times, alternating, and print each round and the median ratio of the times to all Programmed")
	flag.Parse()
	var err error
	if s.change, err = parseChange(*changeFlag); err == nil && s.change != noChange {
		s.rollout, err = parseRollout(*rolloutFlag)
	}
	if err == nil && s.routes > 0 {
		err = routesShape(&s)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if *recordWrites > 0 {
		err = measureRecordCost(*recordWrites, *timeout)
	} else {
		err = bench(s, *timeout, *binary, *only, *output, *rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// measureRecordCost is the record-cost mode (recordcost.go).
func measureRecordCost(gateways int, timeout time.Duration) error {
	ctx, cancel, binDir, err := start(timeout)
	if err != nil {
		return err
	}
	defer cancel()
	return recordCost(ctx, binDir, gateways, os.Stdout)
}

// start sets the bench's logger and finds the control plane's binaries; its context ends
// after timeout or on a signal.
func start(timeout time.Duration) (context.Context, context.CancelFunc, string, error) {
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel), zap.WriteTo(os.Stderr)))
	ctx, cancel := context.WithTimeout(ctrl.SetupSignalHandler(), timeout)
	binDir, err := controlplane.FindBinaries(testenv.RepoRoot())
	if err != nil {
		cancel()
		return nil, nil, "", err
	}
	return ctx, cancel, binDir, nil
}

func bench(s settings, timeout time.Duration, binary, only, output string, rounds int) error {
	if output != "table" && output != "json" {
		return fmt.Errorf("-o %s: want table or json", output)
	}
	if only != "" && only != "floor" && only != "gatewright" {
		return fmt.Errorf("-only %s: want floor or gatewright", only)
	}
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", rounds)
	}
	if s.profileDir != "" {
		if err := os.MkdirAll(s.profileDir, 0o755); err != nil {
			return err
		}
	}
	ctx, cancel, binDir, err := start(timeout)
	if err != nil {
		return err
	}
	defer cancel()
	s.binDir = binDir
	floorBinary, err := os.Executable()
	if err != nil {
		return err
	}
	if binary == "" && only != "floor" {
		dir, err := os.MkdirTemp("", "gatewright-bench-build-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if binary, err = buildGatewright(ctx, dir); err != nil {
			return err
		}
	}
	contenders := []contender{floorContender(floorBinary, s), gatewrightContender(binary)}
	var ratios, editRatios []float64
	for round := 1; round <= rounds; round++ {
		rep, err := measureRound(ctx, s, contenders, only, round)
		if err != nil {
			return err
		}
		if len(rep.Results) == 2 {
			ratios = append(ratios, headlineSeconds(rep.Results[1])/headlineSeconds(rep.Results[0]))
			if s.routes > 0 {
				editRatios = append(editRatios, rep.Results[1].Routes.Edit.AppliedSeconds/rep.Results[0].Routes.Edit.AppliedSeconds)
			}
		}
		if output == "json" {
			out := json.NewEncoder(os.Stdout)
			out.SetIndent("", "  ")
			if err := out.Encode(rep); err != nil {
				return err
			}
			continue
		}
		if rounds > 1 {
			fmt.Fprintf(os.Stdout, "round %d of %d\n", round, rounds)
		}
		rep.print(os.Stdout)
		fmt.Fprintln(os.Stdout)
	}
	if output == "table" && len(ratios) > 1 {
		if s.routes > 0 {
			printRatios(os.Stdout, "every route Accepted and held", ratios)
			printRatios(os.Stdout, "the edited route applied", editRatios)
		} else {
			printRatios(os.Stdout, "all Programmed", ratios)
		}
	}
	return nil
}

// measureRound measures each contender (or only the one named) once, one after the other.
func measureRound(ctx context.Context, s settings, contenders []contender, only string, round int) (*report, error) {
	rep := &report{Machine: machine(), Gateways: s.gateways, Routes: s.routes, Namespaces: s.namespaces, Parallel: s.parallel,
		SettleSeconds: s.settle.Seconds(), SteadySeconds: s.steady.Seconds(), Change: s.change, Rollout: s.rollout, Restart: s.restart}
	for _, c := range contenders {
		if only != "" && only != c.name {
			continue
		}
		res, err := measure(ctx, s, c, round)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

// buildGatewright builds the controller binary as the Dockerfile does, into dir.
func buildGatewright(ctx context.Context, dir string) (string, error) {
	binary := filepath.Join(dir, "gatewright")
	progress("gatewright", "building %s", binary)
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", binary, "./cmd/gatewright")
	build.Dir = testenv.RepoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building gatewright: %w", err)
	}
	return binary, nil
}

// gatewrightContender is the shipped controller, with its default flags, as its
// ServiceAccount bound to the shipped ClusterRole and the rendered kinds.
func gatewrightContender(binary string) contender {
	return contender{
		name:   "gatewright",
		user:   gatewrightUser,
		groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + controllerNamespace},
		install: func(ctx context.Context, admin client.Client) error {
			for _, file := range []string{"role.yaml", "role_binding.yaml"} {
				data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "rbac", file))
				if err != nil {
					return err
				}
				if err := applyYAML(ctx, admin, string(data)); err != nil {
					return err
				}
			}
			return applyYAML(ctx, admin, renderedKinds)
		},
		makeChange: func(ctx context.Context, admin client.Client, s settings) error {
			return applyYAML(ctx, admin, s.change.gatewrightEdit(s.rollout))
		},
		command: func() ([]string, error) {
			metrics, err1 := freeAddress()
			probes, err2 := freeAddress()
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("finding free ports: %v %v", err1, err2)
			}
			return []string{binary, "controller", metricsFlag + metrics, probeFlag + probes}, nil
		},
		gatewayController: "gateway",
	}
}

// floorContender is the floor (floor.go), this binary run as its own process.
func floorContender(binary string, s settings) contender {
	return contender{
		name: "floor",
		user: floorUser,
		install: func(ctx context.Context, admin client.Client) error {
			return applyYAML(ctx, admin, floorRBAC)
		},
		makeChange: func(ctx context.Context, admin client.Client, s settings) error {
			edit, err := floorChangeYAML(s.change)
			if err != nil {
				return err
			}
			return applyYAML(ctx, admin, edit)
		},
		command: func() ([]string, error) {
			metrics, err1 := freeAddress()
			probes, err2 := freeAddress()
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("finding free ports: %v %v", err1, err2)
			}
			command := []string{binary, floorCommand, metricsFlag + metrics, probeFlag + probes}
			if s.floorCachesChildren {
				command = append(command, cacheChildrenFlag)
			}
			if s.routes > 0 {
				command = append(command, routesFlag)
			}
			return command, nil
		},
		gatewayController: floorControllerName,
	}
}
