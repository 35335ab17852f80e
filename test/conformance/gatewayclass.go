package conformance

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// GatewayClassName is the class the suite runs against.
const GatewayClassName = "gatewright-conformance"

// GatewayAddress is the fixed address the blueprint reports for every Gateway. It is
// from TEST-NET-1 (RFC 5737) and routes nowhere: the suite must never send traffic.
const GatewayAddress = "192.0.2.10"

// The addresses the blueprint reports: the fixed one for every Gateway, or in request
// mode a hostname of its own per Gateway (NAME.NAMESPACE.gateway.invalid; the .invalid
// top-level domain resolves nowhere), by which the request answerer finds the Gateway a
// request is sent to, as `gatewright explain request --address` does.
const (
	fixedAddress      = `{type: IPAddress, value: "` + GatewayAddress + `"}`
	perGatewayAddress = `{type: Hostname, value: "{{ .Gateway.metadata.name }}.{{ .Gateway.metadata.namespace }}.gateway.invalid"}`
)

// gatewayClassManifests are the blueprint and the GatewayClass under test. The blueprint
// renders a ConfigMap naming the valid listeners (those a data plane would serve) and a
// ServiceAccount per Gateway, both ready as soon as they exist, so Gateways are
// Programmed without a data plane (the ServiceAccount is where the suite looks for
// spec.infrastructure's labels and annotations), and a status template that gives every
// Gateway the fixed address the suite waits for. It serves every protocol, tls mode and
// route kind of the Gateway API, and claims the features whose status Gatewright decides.
const gatewayClassManifests = `
apiVersion: gatewright.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: conformance}
spec:
  serves:
    protocols: [HTTP, HTTPS, TLS, TCP, UDP]
    tlsModes: [Terminate, Passthrough]
    routeKinds: [HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute]
    features: [Gateway, GatewayInfrastructure, GatewayPort8080, HTTPRoute, HTTPRouteParentRefPort, ReferenceGrant,
      GRPCRoute, TLSRoute, TLSRouteModeTerminate, TCPRoute, UDPRoute, ListenerSet]
  gatewayTemplate:
    resourceTemplates:
    - name: config
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: {{ .Gateway.metadata.name }}-conformance}
        data:
          listeners: {{ range .Listeners }}{{ if .valid }}{{ .name }} {{ end }}{{ end }}
    - name: serviceaccount
      template: |
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: {{ .Gateway.metadata.name }}-conformance}
    status:
      template: |
        addresses:
        - ADDRESS
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ` + GatewayClassName + `}
spec:
  controllerName: gatewright.dev/gateway-controller
  parametersRef: {group: gatewright.dev, kind: GatewayClassBlueprint, name: conformance}
`

// InstallGatewayClass applies the blueprint and the GatewayClass under test; with
// perGateway, each Gateway reports an address of its own.
func InstallGatewayClass(ctx context.Context, k8s client.Client, perGateway bool) error {
	address := fixedAddress
	if perGateway {
		address = perGatewayAddress
	}
	for _, doc := range strings.Split(strings.Replace(gatewayClassManifests, "ADDRESS", address, 1), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return err
		}
		if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("conformance"), client.ForceOwnership); err != nil {
			return err
		}
	}
	return nil
}
