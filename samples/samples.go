// Package samples carries the sample objects, so that `gatewright dev` can install what
// an infrastructure provider would have set up before a tenant arrives.
package samples

import "embed"

// Provider holds namespaces.yaml and provider/*.yaml: the namespaces, the blueprint, the
// GatewayClasses and the GatewayClassConfigs.
//
//go:embed namespaces.yaml provider/*.yaml
var Provider embed.FS
