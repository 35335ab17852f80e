// Package samples carries the sample objects, so that `gatewright-dev dev` can install
// what an infrastructure provider would have set up before a tenant arrives, and
// `gatewright-dev demo` can play both parts.
package samples

import "embed"

// Provider holds namespaces.yaml and provider/*.yaml: the namespaces, the blueprint, the
// GatewayClasses and the GatewayClassConfigs.
//
//go:embed namespaces.yaml provider/*.yaml
var Provider embed.FS

// Tenant holds tenant/*.yaml: the Gateway web, its GatewayConfig and the HTTPRoute shop.
//
//go:embed tenant/*.yaml
var Tenant embed.FS
