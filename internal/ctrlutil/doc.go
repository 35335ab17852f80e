// Package ctrlutil is the controllers' machinery that knows nothing of Gatewright's
// domain: status writes, conflict retries, the fair queue, watch mapping and
// predicates, metadata-only caches, capped events. What knows Gateways, routes,
// policies or Renderings stays in controllers.
package ctrlutil
