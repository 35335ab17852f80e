package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API group and version of every Gatewright kind.
var GroupVersion = schema.GroupVersion{Group: "gatewright.dev", Version: "v1alpha1"}

var (
	// SchemeBuilder registers the Gatewright kinds with a runtime.Scheme. It is
	// apimachinery's builder, not controller-runtime's, so that the pure packages
	// (internal/values, internal/render) can use these types without controller-runtime.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the Gatewright kinds to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&GatewayClassBlueprint{}, &GatewayClassBlueprintList{},
		&GatewayClassBlueprintRevision{}, &GatewayClassBlueprintRevisionList{},
		&GatewayClassConfig{}, &GatewayClassConfigList{},
		&GatewayConfig{}, &GatewayConfigList{},
		&Rendering{}, &RenderingList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
