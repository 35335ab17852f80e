package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/translate"
)

// shard is the set of GatewayClass names one controller instance implements. An empty
// shard implements every GatewayClass of Gatewright.
//
// Each Gateway belongs to the shard that lists its class; so do the GatewayClass, the
// route parent status entries and the route objects for that Gateway, and the policy
// ancestor entries for the class or the Gateway. What belongs to no single class
// (blueprints, and policy ancestors that are Namespaces, HTTPRoutes or targets that are
// not Gatewright's) belongs to the primary shard: the one that lists the first, by name,
// of Gatewright's GatewayClasses. So every status entry has exactly one writer.
type shard map[string]bool

func newShard(classes []string) shard {
	s := shard{}
	for _, class := range classes {
		if class = strings.TrimSpace(class); class != "" {
			s[class] = true
		}
	}
	return s
}

// includes tells whether a class name is this shard's.
func (s shard) includes(class string) bool {
	return len(s) == 0 || s[class]
}

// ownership is whose a GatewayClass, and so its Gateways, is.
type ownership int

const (
	// unowned: the class is missing or another controller's; no Gatewright instance
	// implements it, and any instance cleans up what Gatewright rendered for its Gateways.
	unowned ownership = iota
	// ownedHere: the class is Gatewright's and in this shard.
	ownedHere
	// ownedElsewhere: the class is Gatewright's and another shard's; hands off.
	ownedElsewhere
)

// ownership of class; nil stands for a missing class.
func (s shard) ownership(class *gatewayv1.GatewayClass) ownership {
	switch {
	case !translate.IsGatewrightClass(class):
		return unowned
	case s.includes(class.Name):
		return ownedHere
	default:
		return ownedElsewhere
	}
}

// primary tells whether this shard lists the first, by name, of Gatewright's
// GatewayClasses. An empty shard is always primary.
func (s shard) primary(ctx context.Context, c client.Reader) (bool, error) {
	if len(s) == 0 {
		return true, nil
	}
	var classes gatewayv1.GatewayClassList
	if err := c.List(ctx, &classes); err != nil {
		return false, err
	}
	first := ""
	for _, class := range classes.Items {
		if translate.IsGatewrightClass(&class) && (first == "" || class.Name < first) {
			first = class.Name
		}
	}
	return first != "" && s[first], nil
}

// gatewayOwnership returns the ownership of the Gateway at key; a missing Gateway is
// unowned.
func (s shard) gatewayOwnership(ctx context.Context, c client.Reader, key client.ObjectKey) (ownership, error) {
	gw := &gatewayv1.Gateway{}
	if err := c.Get(ctx, key, gw); err != nil {
		return unowned, client.IgnoreNotFound(err)
	}
	class, err := getClass(ctx, c, string(gw.Spec.GatewayClassName))
	if err != nil {
		return unowned, err
	}
	return s.ownership(class), nil
}

// gatewaysElsewhere tells, by "namespace/name", whether a Gateway is another shard's,
// remembering the answers for one reconcile.
type gatewaysElsewhere struct {
	reader client.Reader
	shard  shard
	known  map[string]bool
}

func (g *gatewaysElsewhere) has(ctx context.Context, key string) (bool, error) {
	if elsewhere, ok := g.known[key]; ok {
		return elsewhere, nil
	}
	namespace, name, _ := strings.Cut(key, "/")
	owner, err := g.shard.gatewayOwnership(ctx, g.reader, client.ObjectKey{Namespace: namespace, Name: name})
	if err != nil {
		return false, err
	}
	g.known[key] = owner == ownedElsewhere
	return g.known[key], nil
}

// statusLock is how to write the status of obj when other shards write parts of it too
// (a policy's ancestors): with an optimistic lock when there may be other shards, so
// that none of their parts is lost. An unsharded instance writes alone and spares itself
// the conflicts that a cache lagging behind its own writes would cause.
func (s shard) statusLock(obj client.Object) []ctrlutil.StatusOption {
	if len(s) == 0 {
		return nil
	}
	return []ctrlutil.StatusOption{ctrlutil.OptimisticLock(obj)}
}

// leaseName is the name of the lease the replicas of one shard elect their leader with:
// "gatewright.dev" for an empty shard, as before sharding existed, so that upgrading
// keeps the lease; otherwise a name derived from the sorted class names, so that the
// Deployment of each shard has a lease of its own.
func (s shard) leaseName() string {
	if len(s) == 0 {
		return "gatewright.dev"
	}
	sum := sha256.Sum256([]byte(strings.Join(slices.Sorted(maps.Keys(s)), ",")))
	return "gatewright.dev-" + hex.EncodeToString(sum[:8])
}
