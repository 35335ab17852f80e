// Package v1alpha1 holds the Gatewright API: GatewayClassBlueprint (the templates a
// provider writes), and the two GEP-713 inherited policies GatewayClassConfig (provider)
// and GatewayConfig (tenant) that supply the values those templates render with.
//
// +kubebuilder:object:generate=true
// +groupName=gatewright.dev
package v1alpha1
