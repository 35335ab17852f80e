// Command bench measures Gatewright against a real kube-apiserver and etcd: it starts
// the local control plane and the controller in this process, creates N Gateways of a
// five-template blueprint, and reports the time until all are Programmed, the API
// writes the controller made per Gateway, its writes during a steady-state window, and
// its memory.
//
//	go run ./test/bench -gateways 100 -steady 60s
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/controllers"
	"github.com/gatewright/gatewright/internal/controlplane"
	"github.com/gatewright/gatewright/internal/manifest"
	"github.com/gatewright/gatewright/test/testenv"
)

const blueprint = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bench}
spec:
  values:
    default: {replicas: 2, image: envoyproxy/envoy:v1.36.2, labels: {tier: bench}}
  helpers: |
    {{- define "name" }}{{ .Gateway.metadata.name }}-proxy{{ end -}}
  gatewayTemplate:
    resourceTemplates:
    - name: bootstrap
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ include "name" . }}-bootstrap
          labels: {{- toYaml .Values.labels | nindent 4 }}
        data: {image: {{ .Values.image | quote }}, replicas: {{ .Values.replicas | quote }}}
    - name: listeners
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ include "name" . }}-listeners}
        data:
          {{- range .Gateway.spec.listeners }}
          {{ .name }}: {{ .port | quote }}
          {{- end }}
    - name: routes
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ include "name" . }}-routes}
        data: {count: {{ len .HTTPRoutes | quote }}}
    - name: account
      template: |
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: {{ include "name" . }}}
    - name: service
      dependsOn: [account]
      template: |
        apiVersion: v1
        kind: Service
        metadata: {name: {{ include "name" . }}}
        spec:
          clusterIP: None # headless: the test API server has 256 service IPs
          selector: {app: {{ include "name" . | quote }}}
          ports:
          {{- range .Gateway.spec.listeners }}
          - {name: {{ .name | quote }}, port: {{ .port }}}
          {{- end }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: bench}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: bench}
---
apiVersion: v1
kind: Namespace
metadata: {name: gatewright-system}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassConfig
metadata: {name: bench, namespace: gatewright-system}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: bench}]
  override: {labels: {managed: platform}}
`

// writeCounter counts the controller's requests that change something.
type writeCounter struct {
	next   http.RoundTripper
	writes atomic.Int64
	events atomic.Int64
	dryRun atomic.Int64
}

func (c *writeCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		switch {
		case strings.Contains(req.URL.RawQuery, "dryRun="):
			c.dryRun.Add(1)
		case strings.Contains(req.URL.Path, "/events"):
			c.events.Add(1)
		default:
			c.writes.Add(1)
		}
	}
	return c.next.RoundTrip(req)
}

func main() {
	gateways := flag.Int("gateways", 100, "how many Gateways to create")
	namespaces := flag.Int("namespaces", 10, "how many namespaces to spread them over")
	steady := flag.Duration("steady", 60*time.Second, "how long to count writes once every Gateway is Programmed")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up after this long")
	flag.Parse()
	if err := run(*gateways, *namespaces, *steady, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(gateways, namespaces int, steady, timeout time.Duration) error {
	// Interrupting the harness still stops the control plane it started.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	bin, err := controlplane.FindBinaries(testenv.RepoRoot())
	if err != nil {
		return err
	}
	env, err := controlplane.New(bin)
	if err != nil {
		return err
	}
	cfg, err := env.Start()
	if err != nil {
		return err
	}
	defer func() { _ = env.Stop() }()
	harnessCfg := rest.CopyConfig(cfg)
	harnessCfg.QPS, harnessCfg.Burst = 500, 1000
	k8s, err := client.New(harnessCfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		return err
	}
	if err := applyAll(ctx, k8s, blueprint); err != nil {
		return err
	}

	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel), zap.WriteTo(os.Stderr)))
	counter := &writeCounter{}
	controllerCfg := rest.CopyConfig(cfg)
	controllerCfg.QPS, controllerCfg.Burst = 200, 400
	controllerCfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
	options := controllers.ManagerOptions()
	options.Metrics = metricsserver.Options{BindAddress: "0"}
	mgr, err := ctrl.NewManager(controllerCfg, options)
	if err != nil {
		return err
	}
	if err := controllers.Setup(ctx, mgr, controllers.Options{ControllerNamespace: "gatewright-system"}); err != nil {
		return err
	}
	go func() { _ = mgr.Start(ctx) }()

	start := time.Now()
	for i := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("tenant-%d", i)}}
		if err := k8s.Create(ctx, ns); err != nil {
			return err
		}
	}
	for i := range gateways {
		gw := &gatewayv1.Gateway{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gw-%d", i), Namespace: fmt.Sprintf("tenant-%d", i%namespaces)},
			Spec: gatewayv1.GatewaySpec{GatewayClassName: "bench", Listeners: []gatewayv1.Listener{
				{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80},
				{Name: "https", Protocol: gatewayv1.HTTPSProtocolType, Port: 443},
			}},
		}
		if err := k8s.Create(ctx, gw); err != nil {
			return err
		}
	}
	created := time.Since(start)

	lastReport := time.Now()
	for {
		programmed, err := countProgrammed(ctx, k8s)
		if err != nil {
			return err
		}
		if programmed == gateways {
			break
		}
		if time.Since(lastReport) > 5*time.Second {
			fmt.Fprintf(os.Stderr, "%s: %d of %d Gateways Programmed, %d writes\n", time.Since(start).Round(time.Second), programmed, gateways, counter.writes.Load())
			lastReport = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d Gateways Programmed when the time ran out", programmed, gateways)
		case <-time.After(250 * time.Millisecond):
		}
	}
	allProgrammed := time.Since(start)
	writesToProgrammed, dryRunsToProgrammed, eventsToProgrammed := counter.writes.Load(), counter.dryRun.Load(), counter.events.Load()

	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(steady):
	}
	steadyWrites := counter.writes.Load() - writesToProgrammed
	steadyDryRuns := counter.dryRun.Load() - dryRunsToProgrammed

	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)

	fmt.Printf("gateways:                      %d (5 objects each, %d namespaces)\n", gateways, namespaces)
	fmt.Printf("created in:                    %s\n", created.Round(time.Millisecond))
	fmt.Printf("all Programmed after:          %s\n", allProgrammed.Round(time.Millisecond))
	fmt.Printf("controller writes until then:  %d (%.1f per Gateway), plus %d events and %d server-side dry runs\n",
		writesToProgrammed, float64(writesToProgrammed)/float64(gateways), eventsToProgrammed, dryRunsToProgrammed)
	fmt.Printf("in %s of steady state:        %d writes, %d events, %d dry runs\n", steady, steadyWrites, counter.events.Load()-eventsToProgrammed, steadyDryRuns)
	fmt.Printf("heap in use after GC:          %.1f MiB (controller, client and this harness; the API server runs apart)\n", float64(mem.HeapInuse)/(1<<20))
	return nil
}

func countProgrammed(ctx context.Context, k8s client.Client) (int, error) {
	var list gatewayv1.GatewayList
	if err := k8s.List(ctx, &list); err != nil {
		return 0, err
	}
	n := 0
	for _, gw := range list.Items {
		if c := meta.FindStatusCondition(gw.Status.Conditions, "Programmed"); c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == gw.Generation {
			n++
		}
	}
	return n, nil
}

func applyAll(ctx context.Context, k8s client.Client, manifests string) error {
	objs, err := manifest.Decode([]byte(manifests))
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("bench"), client.ForceOwnership); err != nil {
			return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}
