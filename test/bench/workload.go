package main

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/manifest"
)

// The workload of issue 14: Gateways of class bench, each rendered into 3 ConfigMaps, a
// Secret and a ClusterIP Service whose clusterIP becomes the Gateway's address; values
// from the blueprint, one global policy (a GatewayClassConfig in the controller
// namespace) and one policy per namespace (a GatewayConfig targeting it).
const (
	benchClass          = "bench"
	controllerNamespace = "gatewright-system"
	// serviceIPRange replaces envtest's /24, which holds only 254 ClusterIPs.
	serviceIPRange = "10.96.0.0/16"
)

// blueprint is the bench GatewayClassBlueprint, its GatewayClass and the controller
// namespace; the global policy is classConfigYAML's (change.go). The floor (floor.go)
// builds the very same children without templates.
const blueprint = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: bench}
spec:
  values:
    default: {replicas: 2, image: envoyproxy/envoy:v1.36.2, labels: {tier: bench}}
  helpers: |
    {{- define "bench.name" }}{{ .Gateway.metadata.name }}-proxy{{ end -}}
  gatewayTemplate:
    resourceTemplates:
    - name: bootstrap
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ include "bench.name" . }}-bootstrap
          labels: {{- toYaml .Values.labels | nindent 4 }}
        data: {image: {{ .Values.image | quote }}, replicas: {{ .Values.replicas | quote }}}
    - name: listeners
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ include "bench.name" . }}-listeners}
        data:
          {{- range .Gateway.spec.listeners }}
          {{ .name }}: {{ .port | quote }}
          {{- end }}
    - name: routes
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ include "bench.name" . }}-routes}
        data: {count: {{ len .HTTPRoutes | quote }}}
    - name: token
      template: |
        apiVersion: v1
        kind: Secret
        metadata: {name: {{ include "bench.name" . }}-token}
        type: Opaque
        data: {token: {{ printf "%s/%s" .Gateway.metadata.namespace .Gateway.metadata.name | sha256sum | b64enc | quote }}}
    - name: service
      template: |
        apiVersion: v1
        kind: Service
        metadata:
          name: {{ include "bench.name" . }}
          labels: {{- toYaml .Values.labels | nindent 4 }}
        spec:
          type: ClusterIP
          selector: {app: {{ include "bench.name" . | quote }}}
          ports:
          {{- range .Gateway.spec.listeners }}
          - {name: {{ .name | quote }}, port: {{ .port }}}
          {{- end }}
    status:
      template: |
        addresses:
        {{- range .Resources.service }}
        {{- with dig "spec" "clusterIP" "" . }}
        - {type: IPAddress, value: {{ . | quote }}}
        {{- end }}
        {{- end }}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: bench}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: bench}
---
apiVersion: v1
kind: Namespace
metadata: {name: gatewright-system}
`

// namespaceName is the name of tenant namespace i.
func namespaceName(i int) string { return fmt.Sprintf("tenant-%d", i) }

// tenant is a tenant namespace and its policy, which adds a label to the children, and,
// edited (the gatewayconfig change), a default image.
func tenant(namespace string, edited bool) string {
	image := ""
	if edited {
		image = ", image: " + changedImage
	}
	return fmt.Sprintf(`
apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: gatewright.dev/v1alpha1
kind: GatewayConfig
metadata: {name: team, namespace: %[1]s}
spec:
  targetRefs: [{group: "", kind: Namespace, name: %[1]s}]
  default: {labels: {team: %[1]s}%[2]s}
`, namespace, image)
}

// gateway is Gateway i of namespaces, spread over them round robin.
func gateway(i, namespaces int) *gatewayv1.Gateway {
	gw := &gatewayv1.Gateway{
		Spec: gatewayv1.GatewaySpec{GatewayClassName: benchClass, Listeners: []gatewayv1.Listener{
			{Name: "http", Protocol: gatewayv1.HTTPProtocolType, Port: 80},
			{Name: "http-alt", Protocol: gatewayv1.HTTPProtocolType, Port: 8080},
		}},
	}
	gw.Name, gw.Namespace = fmt.Sprintf("gw-%d", i), namespaceName(i%namespaces)
	return gw
}

// installWorkload applies the blueprint with its rollout strategy, its class, the
// global policy and the tenant namespaces with their policies; for the routes shape,
// the blueprint whose routes ConfigMap holds every route, and a backend Service in each
// tenant namespace.
func installWorkload(ctx context.Context, k8s client.Client, s settings) error {
	bp := blueprintYAML(s.rollout, false)
	if s.routes > 0 {
		bp = routesBlueprint(bp)
	}
	policies := classConfigYAML(false)
	if s.valuesBytes > 0 {
		bp, policies = withValuesTemplate(bp), policies+"---"+largeValues("", s.valuesBytes)
	}
	if err := applyYAML(ctx, k8s, bp+"---"+policies); err != nil {
		return err
	}
	for i := range s.namespaces {
		stream := tenant(namespaceName(i), false)
		if s.valuesBytes > 0 {
			stream += "---" + largeValues(namespaceName(i), s.valuesBytes)
		}
		if s.routes > 0 {
			stream += "---" + backendService(namespaceName(i))
		}
		if err := applyYAML(ctx, k8s, stream); err != nil {
			return err
		}
	}
	return nil
}

// applyYAML applies every object of a YAML stream as the harness.
func applyYAML(ctx context.Context, k8s client.Client, stream string) error {
	objs, err := manifest.Decode([]byte(stream))
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("bench"), client.ForceOwnership); err != nil {
			return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// The users the controllers run as. Each gets a client certificate of the control plane,
// and only the requests of these users go into the audit log.
const (
	// gatewrightUser is the controller's ServiceAccount as the API server authenticates
	// it, bound to the shipped ClusterRole (config/rbac) and to the rendered kinds.
	gatewrightUser = "system:serviceaccount:" + controllerNamespace + ":gatewright-controller"
	floorUser      = "gatewright-bench:floor"
)

// renderedKinds lets the controller manage what the bench blueprint renders, as the
// chart's rbac.managedResources would.
const renderedKinds = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gatewright-rendered-kinds}
rules:
- apiGroups: [""]
  resources: [configmaps, secrets, services]
  verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gatewright-rendered-kinds}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-rendered-kinds}
subjects: [{kind: ServiceAccount, name: gatewright-controller, namespace: gatewright-system}]
`

// floorRBAC is what the floor needs: to watch Gateways, apply the children, patch
// Gateway status, watch the ConfigMap that tells it of a change (floor_change.go), and
// in the routes shape watch HTTPRoutes and Services and patch the routes' status
// (floor_routes.go), write the policies' status (floor_policies.go) and record a
// change's Gateways in Renderings.
const floorRBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: gatewright-bench-floor}
rules:
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways]
  verbs: [get, list, watch]
- apiGroups: [gateway.networking.k8s.io]
  resources: [gateways/status]
  verbs: [patch]
- apiGroups: [gateway.networking.k8s.io]
  resources: [httproutes]
  verbs: [get, list, watch]
- apiGroups: [gateway.networking.k8s.io]
  resources: [httproutes/status]
  verbs: [patch]
- apiGroups: [""]
  resources: [configmaps, secrets, services]
  verbs: [create, patch]
- apiGroups: [""]
  resources: [configmaps, secrets, services]
  verbs: [get, list, watch]
- apiGroups: [gatewright.dev]
  resources: [gatewayconfigs, gatewayclassconfigs]
  verbs: [get, list, watch]
- apiGroups: [gatewright.dev]
  resources: [gatewayconfigs/status, gatewayclassconfigs/status]
  verbs: [patch]
- apiGroups: [gatewright.dev]
  resources: [renderings]
  verbs: [create, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: gatewright-bench-floor}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gatewright-bench-floor}
subjects: [{kind: User, name: "gatewright-bench:floor", apiGroup: rbac.authorization.k8s.io}]
`
