package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of every Gatewright kind.
	GroupVersion = schema.GroupVersion{Group: "gatewright.dev", Version: "v1alpha1"}

	// SchemeBuilder registers the Gatewright kinds with a runtime.Scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the Gatewright kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
