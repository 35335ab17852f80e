package main

import (
	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gatewright/gatewright/internal/scheme"
)

// clusterOptions are the flags of a command that reads a live cluster, as kubectl's.
type clusterOptions struct {
	kubeconfig string
	context    string
	namespace  string
}

func (o *clusterOptions) addFlags(flags *pflag.FlagSet) {
	flags.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
	flags.StringVar(&o.context, "context", "", "the kubeconfig context to use")
	flags.StringVarP(&o.namespace, "namespace", "n", "", "the object's namespace (default: the context's namespace)")
}

// client reads the kubeconfig as kubectl does; the namespace defaults to the context's.
func (o clusterOptions) client() (client.Client, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.context}
	overrides.Context.Namespace = o.namespace
	config := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	namespace, _, err := config.Namespace()
	if err != nil {
		return nil, "", err
	}
	restConfig, err := config.ClientConfig()
	if err != nil {
		return nil, "", err
	}
	k8s, err := client.New(restConfig, client.Options{Scheme: scheme.New()})
	return k8s, namespace, err
}
