package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/explain/live"
)

type explainOptions struct {
	clusterOptions
	gateway             string
	controllerNamespace string
	output              string
	strict              bool
	partial             bool
}

func newExplainCommand() *cobra.Command {
	opts := explainOptions{controllerNamespace: defaultControllerNamespace}
	cmd := &cobra.Command{
		Use:   "explain gateway|httproute|grpcroute|tlsroute|tcproute|udproute|gatewayconfig|gatewayclassconfig NAME [-n NAMESPACE]",
		Short: "Show the values of a live Gateway or route and where each came from, or where a policy lands",
		Long: `explain reads a Gateway (or a route of any kind and its parent Gateway) and every GatewayClass,
GatewayClassBlueprint, GatewayClassConfig and GatewayConfig that can reach it from the cluster
of the current kubeconfig, and computes its .Values with the same code as the controller and
` + "`gatewright values`" + `. It prints every value with the object that set it, whether as
default or override, its level in the precedence chain (1 blueprint ... 8 HTTPRoute; 9 and
10 are the provider levels of a route in another namespace) and the strategy of its block,
then the values an Atomic or Merge block dropped, then every policy that took part with its
state: Enforced, PartiallyEnforced or Overridden, naming the values that did not take
effect and what overrode them, the halves whose condition (when) was false or failed, and
the unsets the blueprint refused. A block whose condition could not be evaluated applies
(it fails closed): its policy says so, and a warning on stderr names it; --strict makes
that an error.

The values are computed with the blueprint revision the Gateway runs, as the controller
renders it: the one its Rendering's targetRevision names, else the blueprint's
currentRevision; the output says which, and the newer revision a rollout is bringing.

It needs read access to those objects: in the Gateway's (and route's) namespace, in the
controller namespace, and to GatewayClasses, GatewayClassBlueprints and their revisions
(docs/install.md lists a tenant's grants). A caller who may not read one of them (the
owner of a route on another tenant's Gateway) gets the values the controller recorded in
the Rendering of the Gateway or route when it last applied them, with where each came
from and each policy's state, and a line that says so; values at the blueprint's
privateValuePaths show as <private>. Values are never computed without a read the caller
may not make: when the record cannot be read either, explain says what it could not read
and exits 2.

explain gatewayconfig (gwc) or gatewayclassconfig (gcc) says where a policy lands: the
values it sets, then per targetRef the Programmed condition the controller writes for it
(status, reason, message; the reasons GEP-713 names in gateway-api v1.6.3: Programmed,
PartiallyProgrammed, Overridden, Reconciling, or Invalid), and every Gateway, and
HTTPRoute on a Gateway, the target reaches with, per value, what became of it there: in
effect, overridden (by which policy, default or override, at which level), not applied
(its when is false), refused by the blueprint's valuesSchema, or an unset the blueprint
refused; a value whose when could not be evaluated applies and says so (fails closed).
Contexts whose values are not computed (a class of another controller, a blueprint
missing, inputs the caller may not read) say why. The values are computed with the same
code as the controller, once per chain of policies.

Contexts where every value fared alike are printed once, with their count and the first
5 names: a provider whose class-wide policy reaches 5,000 Gateways wants to see the few
ways it fares and where it does not take effect, not 5,000 identical tables; -o yaml|json
names every context. Their fields: policy {kind, namespace, name}; values [{path, value,
as, strategy}]; invalid (why the policy cannot be used at all); targets [{target,
programmed {status, reason, message}, enforced (the deprecated Enforced condition, in
its older reasons, kept for one minor release), contexts (a count), outcomes [{count, contexts
[names], revisions (of the blueprint, those computed with), notComputed, takesNoPart,
notes, values [{path, as, fate (InEffect, Overridden, WhenFalse, RefusedBySchema or
UnsetRefused), by {source, as, level, strategy}, strategy, failedClosed, message}]}]}].

It reads with the caller's rights. A cluster-wide list refused is made in the policy's
namespace instead, which is all the answer needs when the Gateways reached take routes of
their own namespace only (and select none by namespace labels): the other reads refused
are said on stderr as warnings. When the answer depends on a read refused (Gateways or
routes of other namespaces, a class, blueprint, revision or policy of a context), explain
names each and exits 2, printing nothing: a verdict judged without contexts the caller
cannot see could be wrong. With --partial it prints what it could compute, marked
PARTIAL (with -o yaml|json, "partial": true and "unread"), contexts it could not compute
shown as not computed, and still exits 2.

Exit status: 0, 1 on an error (or invalid values, or a warning with --strict), 2 when a
read the answer depends on was refused.`,
		Example: `  gatewright explain gateway web -n team-a
  gatewright explain httproute shop -n team-a -o yaml
  gatewright explain httproute shop -n team-b --gateway team-a/web
  gatewright explain gatewayconfig team -n team-a
  gatewright explain gcc global -n gatewright-system -o json`,
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"gateway", "httproute", "grpcroute", "tlsroute", "tcproute", "udproute", "gatewayconfig", "gatewayclassconfig"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return failClosed(runExplain(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, args[0], args[1]))
		},
	}
	cmd.AddCommand(newExplainRequestCommand())
	flags := cmd.Flags()
	opts.addFlags(flags)
	flags.StringVar(&opts.gateway, "gateway", "", "for a route with several Gatewright parents: the parent Gateway, as [NAMESPACE/]NAME")
	flags.StringVar(&opts.controllerNamespace, "controller-namespace", opts.controllerNamespace, "the namespace whose GatewayClassConfigs are global")
	flags.StringVarP(&opts.output, "output", "o", "", "yaml or json (default: tables)")
	flags.BoolVar(&opts.strict, "strict", false, "exit non-zero when a warning is printed (a condition that failed closed)")
	flags.BoolVar(&opts.partial, "partial", false, "gatewayconfig|gatewayclassconfig: when a read is refused, print what can be computed, marked partial (exit 2)")
	return cmd
}

func runExplain(ctx context.Context, out, errOut io.Writer, opts explainOptions, kind, name string) error {
	if opts.output != "" && opts.output != "yaml" && opts.output != "json" {
		return fmt.Errorf("--output must be yaml or json, not %q", opts.output)
	}
	k8s, namespace, err := opts.client()
	if err != nil {
		return err
	}
	if policyKind, ok := policyKinds[kind]; ok {
		return runExplainPolicy(ctx, out, errOut, k8s, opts, policyKind, namespace, name)
	}
	reader := live.Reader{Client: k8s, ControllerNamespace: opts.controllerNamespace}
	var exp *explain.ValuesExplanation
	var recorded *explain.RecordSource
	routeKind, isRoute := routeKindOf(kind)
	switch {
	case kind == "gateway" || kind == "gateways" || kind == "gw":
		exp, recorded, err = reader.Gateway(ctx, namespace, name)
	case isRoute:
		exp, recorded, err = reader.Route(ctx, routeKind, namespace, name, opts.gateway)
	default:
		return fmt.Errorf("explain gateway, a route (httproute, grpcroute, tlsroute, tcproute, udproute), gatewayconfig or gatewayclassconfig, not %q", kind)
	}
	if exp == nil {
		return err
	}
	if recorded != nil {
		return printRecorded(out, recorded, exp, opts.output)
	}
	about := "Gateway " + exp.Gateway
	if exp.HTTPRoute != "" {
		about = exp.Route() + " on " + about
	}
	warned := printWarnings(errOut, about, exp.FailedClosedWarnings())
	if printErr := printValuesExplanation(out, exp, opts.output); printErr != nil {
		return printErr
	}
	if err != nil {
		// The explanation printed the violations; exit non-zero without repeating them.
		return errors.New("the values are invalid")
	}
	return strictError(opts.strict, warned)
}
