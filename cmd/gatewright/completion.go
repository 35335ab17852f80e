package main

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// completionTimeout bounds the reads of one completion: a shell waits for it.
const completionTimeout = 5 * time.Second

// liveKind is a kind whose names completion offers, read from the cluster.
type liveKind struct {
	gvk        schema.GroupVersionKind
	namespaced bool
}

var (
	gatewayKind            = liveKind{gatewayv1.SchemeGroupVersion.WithKind("Gateway"), true}
	httpRouteKind          = liveKind{gatewayv1.SchemeGroupVersion.WithKind("HTTPRoute"), true}
	grpcRouteKind          = liveKind{gatewayv1.SchemeGroupVersion.WithKind("GRPCRoute"), true}
	tlsRouteKind           = liveKind{gatewayv1.SchemeGroupVersion.WithKind("TLSRoute"), true}
	tcpRouteKind           = liveKind{gatewayv1.SchemeGroupVersion.WithKind("TCPRoute"), true}
	udpRouteKind           = liveKind{gatewayv1.SchemeGroupVersion.WithKind("UDPRoute"), true}
	gatewayConfigKind      = liveKind{gatewrightv1alpha1.GroupVersion.WithKind(gatewrightv1alpha1.KindGatewayConfig), true}
	gatewayClassConfigKind = liveKind{gatewrightv1alpha1.GroupVersion.WithKind(gatewrightv1alpha1.KindGatewayClassConfig), true}
	blueprintKind          = liveKind{gatewrightv1alpha1.GroupVersion.WithKind("GatewayClassBlueprint"), false}
	gatewayClassKind       = liveKind{gatewayv1.SchemeGroupVersion.WithKind("GatewayClass"), false}
	namespaceKind          = liveKind{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, false}
)

// argKinds are the kinds the first argument of explain and tree names, by the words
// the commands take for them.
var argKinds = map[string]liveKind{
	"gateway": gatewayKind, "gateways": gatewayKind, "gw": gatewayKind,
	"httproute": httpRouteKind, "httproutes": httpRouteKind,
	"grpcroute": grpcRouteKind, "grpcroutes": grpcRouteKind,
	"tlsroute": tlsRouteKind, "tlsroutes": tlsRouteKind,
	"tcproute": tcpRouteKind, "tcproutes": tcpRouteKind,
	"udproute": udpRouteKind, "udproutes": udpRouteKind,
	"gatewayconfig": gatewayConfigKind, "gatewayconfigs": gatewayConfigKind, "gwc": gatewayConfigKind,
	"gatewayclassconfig": gatewayClassConfigKind, "gatewayclassconfigs": gatewayClassConfigKind, "gcc": gatewayClassConfigKind,
}

// addLiveCompletion makes the shell completion of the commands that read a live cluster
// offer what is there: the names of Gateways, routes, policies and blueprints where a
// command takes one (diff --delete's KIND/NAMESPACE/NAME too), and namespaces and
// contexts for -n and --context. It reads with the
// command's flags (--kubeconfig, --context, -n, --as...) as the command would, and
// offers nothing when a read fails or is refused: a completion never prints an error.
func addLiveCompletion(root *cobra.Command) {
	namespaces := completeNames(func(*cobra.Command, []string) (liveKind, bool) { return namespaceKind, true })
	for _, cmd := range allCommands(root) {
		if cmd.Flags().Lookup("kubeconfig") == nil && cmd.PersistentFlags().Lookup("kubeconfig") == nil {
			continue // offline: values and render take --gateway from files
		}
		// A flag a command inherits is registered where it is defined: once.
		for name, complete := range map[string]cobra.CompletionFunc{"namespace": namespaces, "context": completeContexts, "gateway": completeGatewayRefs} {
			if cmd.LocalNonPersistentFlags().Lookup(name) != nil || cmd.PersistentFlags().Lookup(name) != nil {
				_ = cmd.RegisterFlagCompletionFunc(name, complete)
			}
		}
	}
	if explain := subcommand(root, "explain"); explain != nil {
		explain.ValidArgs = nil // the function below offers them, and then the names
		explain.ValidArgsFunction = completeKindAndName("gateway", "httproute", "grpcroute", "tlsroute", "tcproute", "udproute", "gatewayconfig", "gatewayclassconfig")
	}
	if tree := subcommand(root, "tree"); tree != nil {
		tree.ValidArgs = nil
		tree.ValidArgsFunction = completeKindAndName("gateway", "httproute", "grpcroute", "tlsroute", "tcproute", "udproute")
	}
	if diff := subcommand(root, "diff"); diff != nil {
		_ = diff.RegisterFlagCompletionFunc("delete", completeDeleteRefs)
	}
	if rollout := subcommand(root, "rollout"); rollout != nil {
		for _, cmd := range rollout.Commands() {
			cmd.ValidArgsFunction = completeNames(func(_ *cobra.Command, args []string) (liveKind, bool) { return blueprintKind, len(args) == 0 })
		}
	}
}

// completeKindAndName completes a command's KIND NAME arguments: the kinds, then the
// names of the kind given in the namespace of -n (else the context's).
func completeKindAndName(kinds ...string) cobra.CompletionFunc {
	names := completeNames(func(_ *cobra.Command, args []string) (liveKind, bool) {
		kind, ok := argKinds[args[0]]
		return kind, ok && len(args) == 1
	})
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return withPrefix(kinds, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return names(cmd, args, toComplete)
	}
}

// completeNames completes the names of the kind that kindOf says the next argument or
// flag value is, when it says there is one.
func completeNames(kindOf func(cmd *cobra.Command, args []string) (liveKind, bool)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		kind, ok := kindOf(cmd, args)
		if !ok {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		opts := clusterOptionsOf(cmd.Flags())
		k8s, namespace, err := opts.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(contextOf(cmd), completionTimeout)
		defer cancel()
		if !kind.namespaced {
			namespace = ""
		}
		names, _ := listNames(ctx, k8s, kind, namespace)
		return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeGatewayRefs completes --gateway [NAMESPACE/]NAME: the Gateways of the namespace
// of -n (else the context's) by name, and those of every namespace the caller may list
// as NAMESPACE/NAME.
func completeGatewayRefs(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	opts := clusterOptionsOf(cmd.Flags())
	k8s, namespace, err := opts.client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(contextOf(cmd), completionTimeout)
	defer cancel()
	refs, _ := listNames(ctx, k8s, gatewayKind, namespace)
	if all, err := listRefs(ctx, k8s, gatewayKind); err == nil {
		refs = append(refs, all...)
	}
	return withPrefix(refs, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// deletableKinds are the kinds whose objects completion offers for diff --delete.
var deletableKinds = []liveKind{gatewayKind, httpRouteKind, gatewayConfigKind, gatewayClassConfigKind, blueprintKind, gatewayClassKind}

// completeDeleteRefs completes diff --delete KIND/NAMESPACE/NAME (KIND/NAME when
// cluster-scoped) one part at a time: the kinds, then the namespaces, then the names.
func completeDeleteRefs(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	const partial = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	kindName, rest, found := strings.Cut(toComplete, "/")
	if !found {
		var refs []string
		for _, k := range deletableKinds {
			refs = append(refs, k.gvk.Kind+"/")
		}
		return withPrefix(refs, toComplete), partial
	}
	i := slices.IndexFunc(deletableKinds, func(k liveKind) bool { return strings.EqualFold(k.gvk.Kind, kindName) })
	if i < 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	kind := deletableKinds[i]
	k8s, _, err := clusterOptionsOf(cmd.Flags()).client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(contextOf(cmd), completionTimeout)
	defer cancel()
	prefix := kindName + "/"
	namespace, _, named := strings.Cut(rest, "/")
	var refs []string
	directive := cobra.ShellCompDirectiveNoFileComp
	switch {
	case !kind.namespaced:
		names, _ := listNames(ctx, k8s, kind, "")
		for _, name := range names {
			refs = append(refs, prefix+name)
		}
	case !named:
		namespaces, _ := listNames(ctx, k8s, namespaceKind, "")
		for _, ns := range namespaces {
			refs = append(refs, prefix+ns+"/")
		}
		directive = partial
	default:
		names, _ := listNames(ctx, k8s, kind, namespace)
		for _, name := range names {
			refs = append(refs, prefix+namespace+"/"+name)
		}
	}
	return withPrefix(refs, toComplete), directive
}

// completeContexts completes --context with the kubeconfig's contexts.
func completeContexts(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	raw, err := clusterOptionsOf(cmd.Flags()).clientConfig().RawConfig()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for name := range raw.Contexts {
		names = append(names, name)
	}
	slices.Sort(names)
	return withPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// listNames lists the names of the objects of kind in namespace ("" for every namespace,
// or a cluster-scoped kind), reading their metadata only.
func listNames(ctx context.Context, k8s client.Client, kind liveKind, namespace string) ([]string, error) {
	items, err := listMetadata(ctx, k8s, kind, namespace)
	names := make([]string, 0, len(items))
	for _, item := range items {
		names = append(names, item.Name)
	}
	return names, err
}

// listRefs lists the objects of a namespaced kind in every namespace, as NAMESPACE/NAME.
func listRefs(ctx context.Context, k8s client.Client, kind liveKind) ([]string, error) {
	items, err := listMetadata(ctx, k8s, kind, "")
	refs := make([]string, 0, len(items))
	for _, item := range items {
		refs = append(refs, item.Namespace+"/"+item.Name)
	}
	return refs, err
}

func listMetadata(ctx context.Context, k8s client.Client, kind liveKind, namespace string) ([]metav1.PartialObjectMetadata, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(kind.gvk.GroupVersion().WithKind(kind.gvk.Kind + "List"))
	if err := k8s.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	slices.SortFunc(list.Items, func(a, b metav1.PartialObjectMetadata) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return list.Items, nil
}

// withPrefix keeps the candidates that start with what the user typed.
func withPrefix(candidates []string, toComplete string) []cobra.Completion {
	var out []cobra.Completion
	for _, c := range candidates {
		if strings.HasPrefix(c, toComplete) {
			out = append(out, c)
		}
	}
	return out
}

// contextOf is the command's context; completion runs commands without one.
func contextOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// allCommands is root and every command under it.
func allCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, cmd := range root.Commands() {
		out = append(out, allCommands(cmd)...)
	}
	return out
}

// subcommand is root's direct subcommand of that name, or nil.
func subcommand(root *cobra.Command, name string) *cobra.Command {
	for _, cmd := range root.Commands() {
		if cmd.Name() == name {
			return cmd
		}
	}
	return nil
}
