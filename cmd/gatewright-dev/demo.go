package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/manifest"
)

type demoOptions struct {
	binDir  string
	timeout time.Duration
}

func newDemoCommand() *cobra.Command {
	opts := demoOptions{timeout: time.Minute}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Play the Gatewright story on a local control plane and check every step",
		Long: `demo starts the same local environment as ` + "`gatewright-dev dev`" + ` (control plane, controller,
and the development-only node and load-balancer simulation) and plays the story of a
provider and a tenant, printing each step and the kubectl command it stands for:

  1. the provider installs a blueprint, two GatewayClasses sharing it (internet and
     internal), a global GatewayClassConfig (tags, limits) and one for the tenant;
  2. the tenant applies a Gateway and a GatewayConfig, and the Gateway gets an address;
  3. explain shows each value and where it came from;
  4. the tenant changes a value and the rendered Deployment follows;
  5. the tenant tries to change a value the provider overrides, and cannot;
  6. an HTTPRoute attaches and its objects appear;
  7. explain shows the values the route's templates see;
  8. deleting the Gateway removes everything it created.

It exits 0 only when every step was observed, and stops everything it started.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.binDir, "control-plane-bin", "", "`folder` with the etcd and kube-apiserver binaries (default: $KUBEBUILDER_ASSETS, else bin/k8s/<version> built by make testbin)")
	cmd.Flags().DurationVar(&opts.timeout, "step-timeout", opts.timeout, "how long to wait for what each step expects")
	return cmd
}

func runDemo(ctx context.Context, out io.Writer, opts demoOptions) (err error) {
	workDir, err := os.MkdirTemp("", "gatewright-demo-")
	if err != nil {
		return err
	}
	logPath := filepath.Join(workDir, "controller.log")
	logs, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logs.Close()
	env, err := startDevEnvironment(ctx, out, devEnvironmentOptions{
		binDir: opts.binDir, kubeconfig: filepath.Join(workDir, "kubeconfig"), simulate: true, logs: logs,
	})
	if err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, env.stop())
		if err != nil {
			fmt.Fprintf(out, "\nThe demo failed. The controller's log is %s\n", logPath)
			return
		}
		err = os.RemoveAll(workDir)
	}()
	d := &demo{env: env, out: out, timeout: opts.timeout}
	for _, step := range d.story() {
		if err := d.play(ctx, step); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\nDemo passed: all %d steps observed.\n", len(d.story()))
	return nil
}

// demo plays the steps of the story against a dev environment.
type demo struct {
	env     *devEnvironment
	out     io.Writer
	timeout time.Duration
	step    int
}

// demoStep is one step of the story: what the user would type, what it does, and what
// must then be seen.
type demoStep struct {
	title    string
	commands []string
	act      func(ctx context.Context) error
	expect   []expectation
}

// expectation is something the step waits to observe; check says whether it holds now
// and describes what it saw.
type expectation struct {
	what  string
	check func(ctx context.Context) (bool, string, error)
}

func (d *demo) play(ctx context.Context, step demoStep) error {
	d.step++
	fmt.Fprintf(d.out, "\nStep %d. %s\n", d.step, step.title)
	for _, command := range step.commands {
		fmt.Fprintf(d.out, "  $ %s\n", command)
	}
	if step.act != nil {
		if err := step.act(ctx); err != nil {
			return fmt.Errorf("step %d (%s): %w", d.step, step.title, err)
		}
	}
	for _, e := range step.expect {
		seen, err := d.await(ctx, e)
		if err != nil {
			return fmt.Errorf("step %d (%s): %s: %w", d.step, step.title, e.what, err)
		}
		fmt.Fprintf(d.out, "  ✓ %s: %s\n", e.what, seen)
	}
	return nil
}

// await polls e until it holds or the step timeout passes.
func (d *demo) await(ctx context.Context, e expectation) (string, error) {
	var seen string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, d.timeout, true, func(ctx context.Context) (bool, error) {
		ok, description, err := e.check(ctx)
		seen = description
		return ok, err
	})
	if wait.Interrupted(err) {
		return seen, fmt.Errorf("not seen within %s; last seen: %s", d.timeout, seen)
	}
	return seen, err
}

// apply applies the named files of fsys.
func (d *demo) apply(fsys fs.FS, names ...string) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, name := range names {
			if err := manifest.ApplyFile(ctx, d.env.client, fsys, name, fieldOwner, &indent{w: d.out}); err != nil {
				return err
			}
		}
		return nil
	}
}

// indent writes every line one level deeper, under a step.
type indent struct {
	w io.Writer
	// midLine is true when the last write did not end a line.
	midLine bool
}

func (i *indent) Write(p []byte) (int, error) {
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		if !i.midLine && line != "\n" {
			b.WriteString("  ")
		}
		b.WriteString(line)
		i.midLine = !strings.HasSuffix(line, "\n")
	}
	if _, err := io.WriteString(i.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (d *demo) get(ctx context.Context, namespace, name string, obj client.Object) (bool, error) {
	err := d.env.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj)
	if client.IgnoreNotFound(err) != nil {
		return false, err
	}
	return err == nil, nil
}
