package listeners

import (
	"fmt"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// MaxGatewayListenerSets bounds the ListenerSets one Gateway judges. Every ListenerSet
// lists at least one listener, so no more than MaxGatewayListeners of them could ever
// attach: the bound refuses no ListenerSet the listener bound would take. Any tenant
// allowed to create ListenerSets may name any Gateway, refused or not; past the bound,
// the newest (by Precedence) are refused on their own status, whole, with a message
// that does not change as more arrive, so that each is written once. They cost neither
// a namespace nor a Secret read, nor a line of the Gateway's status.
const MaxGatewayListenerSets = MaxGatewayListeners

// Precedence orders ListenerSets as the specification orders their conflicts: oldest
// first, then by namespace/name.
func Precedence(a, b Set) int {
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Ref.String(), b.Ref.String())
}

// InPrecedence is a copy of sets in Precedence.
func InPrecedence(sets []Set) []Set {
	ordered := slices.Clone(sets)
	slices.SortStableFunc(ordered, Precedence)
	return ordered
}

// pastSetBound is the verdict of a ListenerSet of gw past MaxGatewayListenerSets.
func pastSetBound(gw *gatewayv1.Gateway, ref SetRef) SetVerdict {
	return SetVerdict{Ref: ref, Reason: gatewayv1.ListenerSetReasonNotAllowed,
		Message: fmt.Sprintf("Gateway %s/%s judges at most %d ListenerSets, the oldest first; this one is among the newest, past that", gw.Namespace, gw.Name, MaxGatewayListenerSets)}
}
