//go:build conformance

package conformance

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/util/wait"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/conformance"
	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/gateway-api/conformance/utils/config"
	"sigs.k8s.io/gateway-api/conformance/utils/roundtripper"
	"sigs.k8s.io/gateway-api/conformance/utils/suite"
	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/gatewright/gatewright/internal/scheme"
	"github.com/gatewright/gatewright/test/testenv"
)

// TestConformance runs the in-scope tests of the Gateway API conformance suite.
// GATEWRIGHT_CONFORMANCE_RUN=<ShortName> runs one of them (its report goes to a temporary
// folder); GATEWRIGHT_CONFORMANCE_REPORT changes where the report is written (default
// test/conformance/report.yaml). GATEWRIGHT_CONFORMANCE_MODE=requests answers the
// suite's HTTP requests from the route table, as `gatewright explain request` does,
// instead of refusing them, and adds the HTTPRoute tests of requestScope; its report
// goes to a temporary folder unless GATEWRIGHT_CONFORMANCE_REPORT says otherwise.
func TestConformance(t *testing.T) {
	requests := os.Getenv("GATEWRIGHT_CONFORMANCE_MODE") == "requests"
	// Controller logs: errors only; the suite's own log is what matters.
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	// The suite polls every 100ms from parallel tests and builds clients from this config;
	// the default 5 QPS would throttle it into its own timeouts.
	cfg := rest.CopyConfig(startCluster(t, requests))
	cfg.QPS, cfg.Burst = 100, 200
	c, clientOptions, err := suiteClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := clientset.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	refusing := &refusingRoundTripper{}
	var transport roundtripper.RoundTripper = refusing
	if requests {
		// The answers read Renderings too (which routes their own templates refused),
		// which the suite's scheme does not know.
		answers, err := client.New(cfg, client.Options{Scheme: scheme.New()})
		if err != nil {
			t.Fatal(err)
		}
		transport = &answeringRoundTripper{client: answers}
	}
	results := &resultLog{}
	run := os.Getenv("GATEWRIGHT_CONFORMANCE_RUN")
	// The suite reads the features to test from the class's status.supportedFeatures,
	// as GEP-2162 intends, so that the report and the class agree; it does so only on a
	// full run, so a one-test run is given them.
	classFeatures, err := supportedFeatures(t, c)
	if err != nil {
		t.Fatal(err)
	}
	var manualFeatures []features.FeatureName
	if run != "" {
		manualFeatures = classFeatures
	}
	if requests {
		manualFeatures = append(classFeatures, requestFeatures...)
	}
	// The profiles of the route kinds the class serves; each reports the tests of its
	// features.
	profiles := []suite.ConformanceProfileName{
		suite.GatewayHTTPConformanceProfileName, suite.GatewayGRPCConformanceProfileName,
		suite.GatewayTLSConformanceProfileName, suite.GatewayTCPConformanceProfileName, suite.GatewayUDPConformanceProfileName,
	}
	report := os.Getenv("GATEWRIGHT_CONFORMANCE_REPORT")
	switch {
	case report != "":
	case run != "" || requests: // a one-test or request-mode report must not replace the committed one
		report = filepath.Join(t.TempDir(), "report.yaml")
	default:
		report = filepath.Join(testenv.RepoRoot(), "test", "conformance", "report.yaml")
	}
	opts := suite.ConformanceOptions{
		ConfigurableOptions: suite.ConfigurableOptions{
			GatewayClassName:     GatewayClassName,
			CleanupBaseResources: true,
			CleanupTestResources: true,
			SupportedFeatures:    manualFeatures,
			ConformanceProfiles:  profiles,
			SkipTests:            outOfScope(requests),
			RunTest:              run,
			TimeoutConfig:        statusTimeouts(),
			ReportOutputPath:     report,
			Mode:                 "default",
			Implementation: confv1.Implementation{
				Organization: "gatewright",
				Project:      "gatewright",
				URL:          "https://github.com/gatewright/gatewright",
				Version:      implementationVersion(),
				Contact:      []string{"https://github.com/gatewright/gatewright/issues"},
			},
		},
		Client:        c,
		ClientOptions: clientOptions,
		Clientset:     cs,
		RestConfig:    cfg,
		RoundTripper:  transport,
		GRPCClient:    refusingGRPCClient{refusing},
		ManifestFS:    []fs.FS{&conformance.Manifests},
		Hook: func(t *testing.T, test suite.ConformanceTest, _ *suite.ConformanceTestSuite) {
			results.record(t, test.ShortName, refusing.Refused()[test.ShortName])
		},
	}
	// Registered before the suite's own clean-up, so it prints after the report.
	t.Cleanup(func() { results.print(t) })
	conformance.RunConformanceWithOptions(t, opts)
}

// supportedFeatures waits for the class under test to list its supported features, and
// returns them.
func supportedFeatures(t *testing.T, c client.Client) ([]features.FeatureName, error) {
	var out []features.FeatureName
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		class := &gatewayv1.GatewayClass{}
		if err := c.Get(ctx, client.ObjectKey{Name: GatewayClassName}, class); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		out = out[:0]
		for _, f := range class.Status.SupportedFeatures {
			out = append(out, features.FeatureName(f.Name))
		}
		return len(out) > 0, nil
	})
	if err != nil {
		return nil, fmt.Errorf("GatewayClass %s lists no supportedFeatures: %w", GatewayClassName, err)
	}
	t.Logf("GatewayClass %s supports %v", GatewayClassName, out)
	return out, nil
}

// statusTimeouts shorten the suite's waits: status appears within seconds on a local
// control plane or not at all, and a failing test should not hold the run for minutes.
func statusTimeouts() config.TimeoutConfig {
	c := config.DefaultTimeoutConfig()
	c.TestIsolation = time.Millisecond // the suite sleeps this between tests, for data planes
	for _, d := range []*time.Duration{
		&c.GatewayMustHaveAddress, &c.GatewayMustHaveCondition, &c.GatewayStatusMustHaveListeners,
		&c.GatewayListenersMustHaveConditions, &c.HTTPRouteMustNotHaveParents, &c.HTTPRouteMustHaveCondition,
		&c.RouteMustHaveParents, &c.LatestObservedGenerationSet, &c.DefaultTestTimeout, &c.MaxTimeToConsistency,
	} {
		*d = 20 * time.Second
	}
	c.GWCMustBeAccepted = 60 * time.Second
	c.NamespacesMustBeReady = 120 * time.Second
	return c
}

// implementationVersion is the checkout's `git describe`, passed in by make, else "dev".
func implementationVersion() string {
	if v := os.Getenv("GATEWRIGHT_VERSION"); v != "" {
		return v
	}
	return "dev"
}

// resultLog collects one line per conformance test for the summary at the end.
type resultLog struct {
	mu    sync.Mutex
	lines []string
}

func (r *resultLog) record(t *testing.T, name string, refused int) {
	result := "PASS"
	switch {
	case t.Failed():
		result = "FAIL"
	case t.Skipped():
		result = "SKIP"
	}
	line := fmt.Sprintf("%-4s %s", result, name)
	if refused > 0 {
		line += fmt.Sprintf(" (%d request(s) refused and their subtests skipped: no data plane)", refused)
	}
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
}

func (r *resultLog) print(t *testing.T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ran []string
	for _, l := range r.lines {
		// Out-of-scope tests are skipped by the suite before they start.
		if !strings.HasPrefix(l, "SKIP") || strings.Contains(l, "refused") {
			ran = append(ran, l)
		}
	}
	sort.Strings(ran)
	t.Logf("In-scope results:\n%s", strings.Join(ran, "\n"))
}
