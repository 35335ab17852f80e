package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/explain"
	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/routing"
	"github.com/gatewright/gatewright/internal/snapshot"
)

type explainRequestOptions struct {
	clusterOptions
	method  string
	headers []string
	gateway string
	address string
	base    []string
	output  string
}

// explainRequestFailed is explain request's exit code when it cannot answer.
const explainRequestFailed = 2

func newExplainRequestCommand() *cobra.Command {
	var opts explainRequestOptions
	cmd := &cobra.Command{
		Use:   "request URL [-X METHOD] [-H 'Name: value']... [--gateway NAMESPACE/NAME | --address HOST]",
		Short: "Show what a Gateway does with one HTTP request: the listener, route and rule that take it, and what the backends receive",
		Long: `explain request answers one HTTP request as a Gateway of a Gatewright class would, by
the Gateway API's rules, from the same route table the controller hands to templates
(.RouteTable): no traffic is sent, and no data plane needs to run.

The URL is scheme://host[:port]/path?query. The host is the request's Host (for https,
its SNI too); the port (80 for http, 443 for https unless given) selects the listener.
The Gateway is the one --gateway names, or the one whose status.addresses holds the
--address a client dials; without either, the only Gateway of a Gatewright class with a
listener on that port for that host.

It prints the listener that takes the request (the most specific hostname on the port),
the HTTPRoute, rule and match (the first in the Gateway API's precedence order on the
most specific host), and the answer:
  - 200: forwarded to the rule's valid backends, with their weights, and the request as
    they receive it after URLRewrite and RequestHeaderModifier (every header passes);
  - 3xx: a RequestRedirect, with its Location;
  - 200 with Access-Control-* headers and no backend: a CORS preflight the Gateway
    answers itself;
  - 404: no listener, host or match takes the request;
  - 500: the rule has no backendRefs, or none that resolves with a weight above 0.
ResponseHeaderModifier changes are listed as what happens to the backend's answer.
Mirrors and extension filters are named but not computed.

It reads with your rights (--kubeconfig, --context) the Gateway, its class, the
HTTPRoutes that may attach to it, their Services and the ReferenceGrants they need; with
--base, the files and folders that stand for the cluster instead, as diff does. A Secret
you may not read is judged by the Gateway's listener status. What else you may not read
is an error that names it: an answer without it could be wrong.

-o json prints {gateway, listener, route, rule, match, response {status, headers,
headerModifier {set, add, remove}}, backends [{kind, namespace, name, port, weight,
request}], request {method, scheme, host, path, headers}}; rule and match are -1 and
route null when no route takes the request.

Exit status: 0 when the request is answered, whatever the answer; 2 when it cannot be.`,
		Example: `  gatewright explain request http://shop.example.com/cart
  gatewright explain request https://shop.example.com/api?v=2 -X POST -H 'X-Version: 2'
  gatewright explain request http://shop.example.com/ --address 203.0.113.7 -o json
  gatewright explain request http://shop.example.com/ --gateway team-a/web --base platform/`,
		Args:          cobra.ExactArgs(1),
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := runExplainRequest(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, args[0])
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "Error:", err)
				return &exitError{code: explainRequestFailed, err: err, silent: true}
			}
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		fmt.Fprintln(cmd.ErrOrStderr(), "Error:", err)
		return &exitError{code: explainRequestFailed, err: err, silent: true}
	})
	flags := cmd.Flags()
	opts.addFlags(flags)
	flags.StringVarP(&opts.method, "request", "X", "GET", "the request's method")
	flags.StringArrayVarP(&opts.headers, "header", "H", nil, "a request header, as 'Name: value' (repeatable)")
	flags.StringVar(&opts.gateway, "gateway", "", "the Gateway, as [NAMESPACE/]NAME (default namespace: the context's)")
	flags.StringVar(&opts.address, "address", "", "the address a client dials: the Gateway whose status.addresses holds it")
	flags.StringSliceVar(&opts.base, "base", nil, "files or folders that stand for the cluster, instead of the kubeconfig's (repeatable)")
	flags.StringVarP(&opts.output, "output", "o", "", "json (default: text)")
	return cmd
}

func runExplainRequest(ctx context.Context, out, errOut io.Writer, opts explainRequestOptions, rawURL string) error {
	if opts.output != "" && opts.output != "json" {
		return fmt.Errorf("--output must be json, not %q", opts.output)
	}
	if opts.gateway != "" && opts.address != "" {
		return errors.New("give --gateway or --address, not both")
	}
	req, err := explain.ParseRequest(rawURL, opts.method, opts.headers)
	if err != nil {
		return err
	}
	var gw *gatewayv1.Gateway
	var table *routing.Table
	var notes []string
	if len(opts.base) > 0 {
		gw, table, err = opts.fromFiles(req)
	} else {
		gw, table, notes, err = opts.fromCluster(ctx, req)
	}
	if err != nil {
		return err
	}
	for _, note := range notes {
		fmt.Fprintln(errOut, "note:", note)
	}
	exp := explain.Answer(gw, table, req)
	if opts.output == "json" {
		data, err := jsonText(exp)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", data)
		return err
	}
	return explain.WriteAnswer(out, exp, req)
}

// fromFiles reads the Gateway and its route table from the files of --base.
func (o explainRequestOptions) fromFiles(req routing.Request) (*gatewayv1.Gateway, *routing.Table, error) {
	set, err := offline.Load(o.base...)
	if err != nil {
		return nil, nil, err
	}
	var gw *gatewayv1.Gateway
	if o.gateway != "" {
		key := explain.ParentKey(o.gateway, "default")
		gw, err = set.Gateway(key.Namespace, key.Name)
	} else {
		gw, err = explain.Choose(set.GatewrightGateways(), req, o.address)
	}
	if err != nil {
		return nil, nil, err
	}
	table, err := set.RouteTable(gw)
	return gw, table, err
}

// fromCluster reads the Gateway and what its route table is computed from with the
// caller's rights.
func (o explainRequestOptions) fromCluster(ctx context.Context, req routing.Request) (*gatewayv1.Gateway, *routing.Table, []string, error) {
	k8s, namespace, err := o.client()
	if err != nil {
		return nil, nil, nil, err
	}
	// A cluster that serves no ListenerSets reads none (readListenerSets).
	g := &snapshot.Gatherer{Reader: k8s, AsRecorded: true, Rights: &snapshot.Rights{}, ServesListenerSets: true}
	var gw *gatewayv1.Gateway
	if o.gateway != "" {
		gw = &gatewayv1.Gateway{}
		key := explain.ParentKey(o.gateway, namespace)
		if err := k8s.Get(ctx, key, gw); err != nil {
			return nil, nil, nil, fmt.Errorf("reading Gateway %s: %w", key, err)
		}
	} else {
		gateways, err := g.GatewrightGateways(ctx, namespace)
		if err != nil {
			return nil, nil, nil, err
		}
		if gw, err = explain.Choose(gateways, req, o.address); err != nil {
			return nil, nil, nil, err
		}
	}
	class, err := g.GatewrightClass(ctx, gw)
	if err != nil {
		return nil, nil, nil, err
	}
	snap, err := g.Gateway(ctx, gw, class, snapshot.RouteTableOnly())
	if err != nil {
		return nil, nil, nil, err
	}
	table, _ := snap.RouteTable()
	return gw, table, g.Rights.Notes, nil
}
