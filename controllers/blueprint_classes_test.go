package controllers

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/scheme"
)

// A revision holds the class-wide GatewayClassConfigs of the blueprint's classes: when
// the classes cannot be read, no revision is made without them.
func TestABlueprintWhoseClassesCannotBeReadMakesNoRevision(t *testing.T) {
	const ns = "gatewright-system"
	bp := &gatewrightv1alpha1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "envoy", UID: "bp-uid"}}
	bp.Spec.GatewayTemplate.ResourceTemplates = []gatewrightv1alpha1.ResourceTemplate{{Name: "config",
		Template: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Gateway.metadata.name }}}\n"}}
	class := &gatewayv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "envoy"}, Spec: gatewayv1.GatewayClassSpec{
		ControllerName: gatewrightv1alpha1.ControllerName,
		ParametersRef:  &gatewayv1.ParametersReference{Group: gatewayv1.Group(gatewrightv1alpha1.GroupVersion.Group), Kind: "GatewayClassBlueprint", Name: "envoy"},
	}}
	config := &gatewrightv1alpha1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fleet"}}
	config.Spec.TargetRefs = []gatewayv1.LocalPolicyTargetReference{{Group: gatewayv1.GroupName, Kind: "GatewayClass", Name: "envoy"}}
	unread := errors.New("the GatewayClasses are not cached yet")
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(bp, class, config).WithStatusSubresource(bp).
		WithIndex(&gatewrightv1alpha1.Rendering{}, indexRenderingBlueprint, renderingBlueprint).
		WithIndex(&gatewayv1.Gateway{}, indexGatewayClassName, gatewayClassName).
		WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*gatewayv1.GatewayClassList); ok {
				return unread
			}
			return c.List(ctx, list, opts...)
		}}).Build()
	r := &BlueprintReconciler{fleetJudge: fleetJudge{Client: c, Blueprints: &render.Cache{}, Recorder: record.NewFakeRecorder(10)}, ControllerNamespace: ns}

	if _, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(bp)}); !errors.Is(err, unread) {
		t.Errorf("reconcile returned %v, want the failed read", err)
	}
	var revisions gatewrightv1alpha1.GatewayClassBlueprintRevisionList
	if err := c.List(t.Context(), &revisions); err != nil {
		t.Fatal(err)
	}
	if len(revisions.Items) != 0 {
		t.Errorf("%d revisions made without knowing which GatewayClassConfigs ride them, want none", len(revisions.Items))
	}
}
