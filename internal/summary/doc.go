// Package summary sums up a Gatewright object's status in the Ready, Reconciling and
// Stalled conditions at the top of its status, which kstatus (Flux's health checks,
// `kubectl wait`) and Gatewright's Argo CD health checks (config/argocd) read: a
// policy's from its ancestors and, for a GatewayClassConfig that rides its blueprint's
// rollouts, from the rollout that carries its change; a blueprint's from its acceptance
// and its rollout. It is plain Go over the status the controllers are about to write.
package summary
