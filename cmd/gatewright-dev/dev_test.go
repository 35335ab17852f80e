package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/controlplane"
	"github.com/gatewright/gatewright/internal/manifest"
)

// lockedBuffer is a bytes.Buffer that dev may write to while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A blueprint that renders a kind the API server does not serve: the provider's mistake
// the controller retries with backoff.
const missingCRD = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: certs}
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: cert
      template: |
        apiVersion: cert-manager.io/v1
        kind: Certificate
        metadata: {name: "{{ .Gateway.metadata.name }}-cert"}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: certs}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: certs}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: c, namespace: team-a}
spec:
  gatewayClassName: certs
  listeners: [{name: http, protocol: HTTP, port: 80}]
`

// TestMain runs gatewright-dev itself instead of the tests when GATEWRIGHT_MAIN is set,
// so that a test can run a command as a process of its own: controller-runtime lets each
// controller name exist once per process, and dev starts the controllers that the demo
// test starts too.
func TestMain(m *testing.M) {
	if os.Getenv("GATEWRIGHT_MAIN") != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDev runs `gatewright-dev dev` as a user meets it: the next steps come last, once the
// controller runs, a provider's mistake shows in the terminal as one line per retry,
// and Ctrl-C stops it all.
func TestDev(t *testing.T) {
	binDir, err := controlplane.FindBinaries(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfig, logFile := filepath.Join(dir, "kubeconfig"), filepath.Join(dir, "controller.log")
	dev := exec.Command(os.Args[0], "dev", "--control-plane-bin", binDir, "--kubeconfig-out", kubeconfig, "--log-file", logFile)
	dev.Env = append(os.Environ(), "GATEWRIGHT_MAIN=1")
	var out, terminal lockedBuffer
	dev.Stdout, dev.Stderr = &out, &terminal
	if err := dev.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dev.Process.Kill() }()

	await(t, "the next steps", func() bool { return strings.Contains(out.String(), "Press Ctrl-C to stop.") })
	startup := out.String()
	steps := startup[strings.Index(startup, "Next steps"):]
	for _, want := range []string{"export KUBECONFIG=" + kubeconfig, "kubectl apply -f samples/tenant/", "\n  gatewright explain gateway web -n team-a\n"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the next steps lack %q:\n%s", want, steps)
		}
	}
	if accepted := strings.Index(startup, "GatewayClass internal: Accepted=True"); accepted < 0 || accepted > strings.Index(startup, "Next steps") {
		t.Errorf("the next steps must come once the controller accepted the samples:\n%s", startup)
	}
	if log, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(log), "Starting workers") {
		t.Errorf("the controller's start-up is not in its log file (%v)", err)
	}
	if terminal.String() != "" {
		t.Errorf("the terminal got log lines while nothing failed:\n%s", terminal.String())
	}

	applyManifest(t, kubeconfig, missingCRD)
	await(t, "the error in the terminal", func() bool { return strings.Count(terminal.String(), "Reconciler error") >= 2 })
	if err := dev.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := dev.Wait(); err != nil {
		t.Errorf("dev did not stop cleanly on Ctrl-C: %v\n%s", err, terminal.String())
	}
	logLine := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\S+\tERROR\tReconciler error\t.*no matches for kind \\"Certificate\\"`)
	for _, line := range strings.Split(strings.TrimSpace(terminal.String()), "\n") {
		if !logLine.MatchString(line) {
			t.Errorf("not a one-line reconcile error: %q", line)
		}
	}
	if !strings.HasSuffix(out.String(), "Stopping the controller and the local control plane\n") {
		t.Errorf("dev did not say it stopped:\n%s", out.String())
	}
}

func TestNextStepsCallTheGatewrightBuiltWithIt(t *testing.T) {
	opts := devOptions{devEnvironmentOptions: devEnvironmentOptions{kubeconfig: "/tmp/kc", simulate: true}, gatewright: "/work/gatewright/bin/gatewright"}
	steps := nextSteps(opts)
	path := `  export PATH="/work/gatewright/bin:$PATH"`
	if !strings.Contains(steps, path) || strings.Index(steps, path) > strings.Index(steps, "gatewright explain") {
		t.Errorf("a gatewright that is not the one on the PATH must be put first on it, before it is called:\n%s", steps)
	}
	opts.gatewright = "gatewright"
	if steps := nextSteps(opts); strings.Contains(steps, "export PATH") {
		t.Errorf("the PATH already finds this gatewright:\n%s", steps)
	}
}

func await(t *testing.T, what string, condition func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return condition(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func applyManifest(t *testing.T, kubeconfig, yaml string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	k8s, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Decode([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objs {
		if err := k8s.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
}
