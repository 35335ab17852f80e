package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/controllers"
)

// The provider's blueprint and policy, the edge tenant's Gateway and its policy, and
// the shop tenant's route on that Gateway with its own policy.
const recordedFixture = `
apiVersion: v1
kind: Namespace
metadata: {name: gatewright-system}
---
apiVersion: v1
kind: Namespace
metadata: {name: edge}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: internet}
spec:
  privateValuePaths: [aws.accountId]
  values:
    default: {timeout: 10s, aws: {accountId: "123456789012", region: eu-west-1}}
  gatewayTemplate: {}
  httpRouteTemplate:
    resourceTemplates:
    - name: route-config
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .HTTPRoute.metadata.name }}-config}
        data: {timeout: {{ .Values.timeout | quote }}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: internet}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: internet}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: web, namespace: edge}
spec:
  gatewayClassName: internet
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: web, namespace: edge}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: web}]
  override: {timeout: 30s}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: shop, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]
  default: {timeout: 5s, retries: 2}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: shop}
spec:
  parentRefs: [{name: web, namespace: edge}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: shop-owner-gatewright, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: shop-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: routes, namespace: shop}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways, httproutes]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: shop-owner-routes, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: routes}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: shop-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: edge-owner-gatewright, namespace: edge}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-tenant}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: edge-owner}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: routes, namespace: edge}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways, httproutes]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: edge-owner-routes, namespace: edge}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: routes}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: edge-owner}]
`

// TestExplainFallsBackToTheRecord runs the controller and explains, as the owner of a
// route on another tenant's Gateway with only the tenant role in its namespace, the
// route's values: the chain is out of its reach, the Rendering is not.
func TestExplainFallsBackToTheRecord(t *testing.T) {
	cfg, admin, kubeconfigFor := tenantCluster(t, recordedFixture)

	options := controllers.ManagerOptions()
	options.Metrics = metricsserver.Options{BindAddress: "0"}
	options.Controller.SkipNameValidation = ptr.To(true) // the demo test starts them too
	mgr, err := ctrl.NewManager(cfg, options)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error)
	t.Cleanup(func() { cancel(); <-stopped })
	if err := controllers.Setup(ctx, mgr, controllers.Options{ControllerNamespace: "gatewright-system"}); err != nil {
		t.Fatal(err)
	}
	go func() { stopped <- mgr.Start(ctx) }()

	await(t, "the route's recorded values", func() bool {
		var list gatewrightv1alpha1.RenderingList
		if err := admin.List(ctx, &list, client.InNamespace("shop")); err != nil || len(list.Items) != 1 || list.Items[0].Values == nil {
			return false
		}
		for _, leaf := range list.Items[0].Values.Provenance {
			if leaf.Path == "timeout" && leaf.Value == `"30s"` {
				return true
			}
		}
		return false
	})

	adminConfig, tenantConfig, gatewayOwnerConfig := kubeconfigFor(""), kubeconfigFor("shop-owner"), kubeconfigFor("edge-owner")

	tests := []struct {
		name       string
		kubeconfig string
		args       []string
		want       []string
		notWant    []string
	}{
		{name: "the route owner, who may not read the Gateway, gets the record, private values hidden", kubeconfig: tenantConfig,
			args: []string{"httproute", "shop", "-n", "shop"},
			want: []string{
				"From Rendering shop/httproute.shop.", "recorded at ", `by the controller (gateways.gateway.networking.k8s.io "web" is forbidden: User "shop-owner" cannot get resource "gateways"`,
				"The record keeps each policy's state, not which of its values lost to what.\nHTTPRoute shop/shop on Gateway edge/web (GatewayClass internet, GatewayClassBlueprint internet)",
				`aws.accountId  "<private>"  GatewayClassBlueprint internet  default   1      Patch`,
				`aws.region     "eu-west-1"  GatewayClassBlueprint internet  default   1      Patch`,
				`retries        2            GatewayConfig shop/shop         default   8      Patch`,
				`timeout        "30s"        GatewayConfig edge/web          override  6      Patch`,
				"GatewayConfig edge/web          6       Enforced",
				"GatewayConfig shop/shop         8       PartiallyEnforced",
			},
			notWant: []string{"123456789012"}},
		{name: "the route owner's YAML says where it comes from", kubeconfig: tenantConfig,
			args: []string{"httproute", "shop", "-n", "shop", "-o", "yaml"},
			want: []string{"recordedIn:\n  because: 'gateways.gateway.networking.k8s.io \"web\" is forbidden", "rendering: shop/httproute.shop.", "value: <private>"}},
		{name: "the Gateway's owner, who may not read the GatewayClass, gets the record of a Gateway without objects", kubeconfig: gatewayOwnerConfig,
			args: []string{"gateway", "web", "-n", "edge"},
			want: []string{
				"From Rendering edge/gateway.web, recorded at ", `gatewayclasses.gateway.networking.k8s.io "internet" is forbidden`,
				`timeout        "30s"        GatewayConfig edge/web          override  6      Patch`,
			},
			notWant: []string{"123456789012", "retries"}},
		{name: "the cluster's admin reads the chain itself", kubeconfig: adminConfig,
			args:    []string{"httproute", "shop", "-n", "shop"},
			want:    []string{`aws.accountId  "123456789012"`, "its default lost to the override of GatewayConfig edge/web (level 6)"},
			notWant: []string{"From Rendering"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetArgs(append([]string{"explain", "--kubeconfig", tt.kubeconfig}, tt.args...))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the output lacks %q:\n%s", want, out.String())
				}
			}
			for _, notWant := range tt.notWant {
				if strings.Contains(out.String(), notWant) {
					t.Errorf("the output has %q:\n%s", notWant, out.String())
				}
			}
		})
	}
}
