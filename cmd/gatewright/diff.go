package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/gatewright/gatewright/internal/diff"
	"github.com/gatewright/gatewright/internal/offline"
)

type diffOptions struct {
	clusterOptions
	files               []string
	base                []string
	deletes             []string
	controllerNamespace string
	output              string
	limit               int
	limitSet            bool
	partial             bool
}

// The exit codes of diff, as kubectl diff's.
const (
	diffUnchanged = 0
	diffChanged   = 1
	diffFailed    = 2
)

// errChanged is diff's way out when something changes: exit 1, nothing more to say.
var errChanged = &exitError{code: diffChanged, err: errors.New("the change changes something"), silent: true}

func newDiffCommand() *cobra.Command {
	opts := diffOptions{controllerNamespace: defaultControllerNamespace, limit: 20}
	cmd := &cobra.Command{
		Use:   "diff -f CHANGED... [--base PATH...] [--delete KIND/NAMESPACE/NAME]",
		Short: "Show what changed manifests would do to the Gateways and routes they reach",
		Long: `diff shows what applying the given manifests would do: the cluster of the current
kubeconfig (read with your rights), or with --base the files and folders that stand for it,
with the manifests of -f applied over it (an object of the same kind, namespace and name is
replaced, a new one added) and the objects named by --delete removed.

It computes, on both sides and with the same code as the controller, every Gateway the change
may reach (a blueprint reaches the Gateways of its classes; a GatewayClassConfig or
GatewayConfig the Gateways and routes of its namespace, every Gateway in the controller
namespace; a route its parent Gateways) and the HTTPRoutes on them, and prints, for each one
whose result changes:
  - the values that change: path, old -> new, and where the new value comes from (the
    policy, default or override, and its level);
  - the objects created, updated (a unified diff; Secret data shows only which keys
    changed) and pruned; when the new result is an error, the controller applies and
    prunes nothing, so no object changes;
  - the conditions that change (Accepted, Programmed and gatewright.dev/...Affected, and a
    route's Accepted on each parent), with the new message: a bad value or template shows
    as Programmed False with its error.
Then every GatewayClassConfig and GatewayConfig whose Programmed verdict changes (its reason,
Programmed, PartiallyProgrammed, Overridden, Reconciling or Invalid, as GEP-713 names them in
gateway-api v1.6.3), judged over the Gateways and routes the change reaches only (the others
are not computed), and last one
summary line: Gateways and routes reached, objects created, updated and pruned, Gateways
that would fail and how many of them already failed.

A blueprint with revisions: each Gateway's before is the revision it runs now (the one
its Rendering's targetRevision names, else the blueprint's currentRevision). Its after is,
for an edit of the blueprint's spec, the new revision that edit makes, which reaches the
Gateways as spec.rollout says (a note says how: in waves unless AllAtOnce); for any other
change, the revision it runs now. Without the revisions or Renderings (files that do not
hold them, a caller who may not read them), the live spec stands in, and a note says so.

--limit bounds the Gateways and routes (and, separately, the policies) printed; the summary
counts them all. -o json prints everything unless --limit is given; each policy carries
programmed {old, new}, and old and new, the reasons of the deprecated Enforced condition,
kept for one minor release so that scripts can move.

Live, it reads with your rights. When they keep it from reading something the answer
depends on (the GatewayClasses, blueprints and their revisions, the GatewayClassConfigs of
the controller namespace and of the namespaces reached, the Gateways, routes, policies and
Renderings of those namespaces, or of every namespace for a change that reaches Gateways by
class or a Gateway that takes routes from other namespaces, and the Secrets, Services and
ReferenceGrants their references name), diff prints no answer: it names on stderr each
kind, namespace and missing permission ("cannot read GatewayClassConfigs in namespace
gatewright-system: missing permission list gatewayclassconfigs.gatewright.dev") and exits
2. docs/install.md lists the grants a tenant needs. What it could not read and does not
need is a note on stderr. --partial computes the diff anyway, with what it could read, and
marks it partial: a first line "PARTIAL" that names what was not read (with -o json,
"partial": true and "unread": [...]); it then exits 1 if it found changes and 2 if not,
never 0: a partial diff cannot say that nothing changes.

Exit status: 0 when nothing changes, 1 when something does, 2 on an error or when a read
the answer depends on was refused (as kubectl diff). Past a few seconds, progress goes to
stderr.`,
		Example: `  # what a blueprint change does to the live cluster
  gatewright diff -f blueprints/envoy-proxy/blueprint.yaml

  # CI on a Git repository of blueprints and policies: main's files stand for the cluster
  git worktree add /tmp/main origin/main
  gatewright diff --base /tmp/main/platform -f platform/ -o json > diff.json
  case $? in 0) echo "no change";; 1) echo "changes: see diff.json";; *) exit 2;; esac

  # a tenant trying a GatewayConfig, and removing a route
  gatewright diff -n team-a -f gatewayconfig.yaml --delete HTTPRoute/team-a/old-shop`,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.limitSet = cmd.Flags().Changed("limit")
			err := runDiff(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts)
			var exit *exitError
			if err != nil && !errors.As(err, &exit) {
				err = &exitError{code: diffFailed, err: err}
			}
			if errors.As(err, &exit) && !exit.silent {
				fmt.Fprintln(cmd.ErrOrStderr(), "Error:", err)
			}
			return err
		},
	}
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintln(cmd.ErrOrStderr(), "Error:", err)
		return &exitError{code: diffFailed, err: err, silent: true}
	})
	flags := cmd.Flags()
	opts.addFlags(flags)
	flags.StringSliceVarP(&opts.files, "filename", "f", nil, "the changed manifests: YAML files or folders (repeatable)")
	flags.StringSliceVar(&opts.base, "base", nil, "files or folders that stand for the cluster, instead of the kubeconfig's (repeatable)")
	flags.StringArrayVar(&opts.deletes, "delete", nil, "remove an object, as KIND/NAMESPACE/NAME (KIND/NAME when cluster-scoped; repeatable)")
	flags.StringVar(&opts.controllerNamespace, "controller-namespace", opts.controllerNamespace, "the namespace whose GatewayClassConfigs are global")
	flags.StringVarP(&opts.output, "output", "o", "", "json (default: text)")
	flags.IntVar(&opts.limit, "limit", opts.limit, "print at most this many Gateways and routes, and policies (0: all)")
	flags.BoolVar(&opts.partial, "partial", false, "when a read the answer depends on is refused, print what could be computed, marked partial (exit 1 or 2, never 0)")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
	return cmd
}

func runDiff(ctx context.Context, out, errOut io.Writer, opts diffOptions) error {
	if opts.output != "" && opts.output != "json" {
		return fmt.Errorf("--output must be json, not %q", opts.output)
	}
	if len(opts.files) == 0 && len(opts.deletes) == 0 {
		return errors.New("give the changed manifests with -f, or objects to remove with --delete")
	}
	deletes := make([]offline.Ref, len(opts.deletes))
	for i, d := range opts.deletes {
		ref, err := offline.ParseRef(d)
		if err != nil {
			return fmt.Errorf("--delete %w", err)
		}
		deletes[i] = ref
	}
	changes, err := offline.Load(opts.files...)
	if err != nil {
		return err
	}
	base, unread, err := opts.readBase(ctx, changes, deletes)
	if err != nil {
		return err
	}
	changed, err := base.With(changes, deletes, opts.controllerNamespace)
	if err != nil {
		return err
	}
	needed, notes := neededReads(diff.DependsOn(base, changed, opts.controllerNamespace), unread)
	if len(needed) > 0 && !opts.partial {
		return refusedReads(errOut, needed)
	}
	notes = append(notes, revisionNotes(base, changed, len(opts.base) == 0)...)
	for _, note := range notes {
		fmt.Fprintln(errOut, "note:", note)
	}
	report, err := diff.Compare(base, changed, diff.Options{ControllerNamespace: opts.controllerNamespace, Progress: progressOn(errOut, time.Now)})
	if err != nil {
		return err
	}
	report.Notes = notes
	report.Partial, report.Unread = len(needed) > 0, needed
	if opts.output == "json" {
		err = printDiffJSON(out, report, opts)
	} else {
		err = printDiff(out, report, opts.limit)
	}
	if err != nil {
		return err
	}
	switch {
	case report.Changed():
		return errChanged
	case report.Partial:
		return errPartialUnchanged
	}
	return nil
}

// errPartialUnchanged is a partial diff's way out when it found no change: it cannot
// tell that nothing changes, so never exit 0.
var errPartialUnchanged = &exitError{code: diffFailed, err: errors.New("the partial diff found no change in what it could read"), silent: true}

// neededReads splits the reads refused into those the answer depends on and notes on
// those it does not.
func neededReads(depends diff.Depends, unread []offline.Unread) (needed []offline.Unread, notes []string) {
	for _, u := range unread {
		if depends.Needs(u) {
			needed = append(needed, u)
		} else {
			notes = append(notes, "not read, and not needed for this change: "+u.String())
		}
	}
	return needed, notes
}

// refusedReads names on errOut each read the answer depends on that was refused, and
// is diff's way out: exit 2, with no answer printed.
func refusedReads(errOut io.Writer, needed []offline.Unread) error {
	for _, u := range needed {
		fmt.Fprintf(errOut, "cannot read %s\n", u)
	}
	err := fmt.Errorf("the diff depends on %d read(s) your rights refused, listed above: it would be computed without them, so it is not printed (docs/install.md lists the grants a tenant needs; --partial prints it marked partial)", len(needed))
	fmt.Fprintln(errOut, "Error:", err)
	return &exitError{code: diffFailed, err: err, silent: true}
}

// readBase reads the cluster the change applies to: the files of --base, or the live
// cluster with the caller's rights, listing namespace by namespace where it may not
// list cluster-wide: its own, the controller's and those the change touches.
func (o diffOptions) readBase(ctx context.Context, changes *offline.Set, deletes []offline.Ref) (*offline.Set, []offline.Unread, error) {
	if len(o.base) > 0 {
		base, err := offline.Load(o.base...)
		return base, nil, err
	}
	k8s, namespace, err := o.client()
	if err != nil {
		return nil, nil, err
	}
	namespaces := append(changes.ObjectNamespaces(), namespace, o.controllerNamespace)
	for _, ref := range deletes {
		namespaces = append(namespaces, ref.Namespace)
	}
	namespaces = slices.DeleteFunc(namespaces, func(ns string) bool { return ns == "" })
	return offline.FromCluster(ctx, k8s, offline.ClusterOptions{Namespaces: namespaces, Changes: changes})
}

// progressAfter is how long diff runs before it says how far it is.
const progressAfter = 2 * time.Second

// progressOn reports on w, past progressAfter by clock and then at most once a second,
// how many of the reached Gateways are computed.
func progressOn(w io.Writer, clock func() time.Time) func(done, total int) {
	var mu sync.Mutex
	start := clock()
	var last time.Time
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		now := clock()
		if now.Sub(start) < progressAfter || (now.Sub(last) < time.Second && done < total) {
			return
		}
		last = now
		fmt.Fprintf(w, "diff: %d/%d Gateways\n", done, total)
	}
}
