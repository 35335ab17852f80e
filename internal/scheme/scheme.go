// Package scheme builds the runtime.Scheme every Gatewright client uses.
package scheme

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// New returns a scheme that knows the Kubernetes built-in kinds, CRDs, Gateway API and
// Gatewright.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		apiextensionsv1.AddToScheme,
		gatewayv1.Install,
		gatewrightv1alpha1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err) // only a programming error can make registration fail
		}
	}
	return s
}
