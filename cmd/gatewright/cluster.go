package main

import (
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/scheme"
)

// clusterOptions are the flags of a command that reads a live cluster, as kubectl's.
type clusterOptions struct {
	kubeconfig string
	context    string
	namespace  string
	// Impersonation, as kubectl's --as, --as-group and --as-uid: a provider checks what a
	// tenant sees with the tenant's rights.
	as      string
	asGroup []string
	asUID   string
}

func (o *clusterOptions) addFlags(flags *pflag.FlagSet) {
	flags.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	flags.StringVar(&o.context, "context", "", "the kubeconfig context to use")
	flags.StringVarP(&o.namespace, "namespace", "n", "", "the object's namespace (default: the context's namespace)")
	flags.StringVar(&o.as, "as", "", "act as this user, as kubectl --as: read with the user's rights (needs the right to impersonate)")
	flags.StringArrayVar(&o.asGroup, "as-group", nil, "act as a member of this group, as kubectl --as-group (repeatable)")
	flags.StringVar(&o.asUID, "as-uid", "", "act with this UID, as kubectl --as-uid")
}

// clusterOptionsOf reads the cluster flags of a parsed command that has them (its own or
// inherited), for code that is not given the command's options, such as completion.
func clusterOptionsOf(flags *pflag.FlagSet) clusterOptions {
	var o clusterOptions
	o.kubeconfig, _ = flags.GetString("kubeconfig")
	o.context, _ = flags.GetString("context")
	o.namespace, _ = flags.GetString("namespace")
	o.as, _ = flags.GetString("as")
	o.asGroup, _ = flags.GetStringArray("as-group")
	o.asUID, _ = flags.GetString("as-uid")
	return o
}

// clientConfig reads the kubeconfig as kubectl does, with the flags over it.
func (o clusterOptions) clientConfig() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	overrides.Context.Namespace = o.namespace
	overrides.AuthInfo.Impersonate = o.as
	overrides.AuthInfo.ImpersonateGroups = o.asGroup
	overrides.AuthInfo.ImpersonateUID = o.asUID
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
}

// restConfig is the REST config of the flags, and the namespace: the flag's, else the
// context's.
func (o clusterOptions) restConfig() (*rest.Config, string, error) {
	config := o.clientConfig()
	namespace, _, err := config.Namespace()
	if err != nil {
		return nil, "", err
	}
	restConfig, err := config.ClientConfig()
	return restConfig, namespace, err
}

// client reads the kubeconfig as kubectl does; the namespace defaults to the context's.
func (o clusterOptions) client() (client.Client, string, error) {
	restConfig, namespace, err := o.restConfig()
	if err != nil {
		return nil, "", err
	}
	k8s, err := client.New(restConfig, client.Options{Scheme: scheme.New()})
	return k8s, namespace, err
}
