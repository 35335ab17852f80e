package listeners

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// MaxGatewayListeners bounds the listeners one Gateway takes, its own and those of the
// ListenerSets it allows together: 64 times the 64 a Gateway or a ListenerSet may list,
// far above what one data plane is given in ordinary use, yet few enough that judging
// their conflicts and rendering them stays cheap. ListenerSets are tenant input: past
// the bound, the newest (by the specification's precedence) are refused on their own
// status, whole, and the Gateway and the older ones are left as they are.
const MaxGatewayListeners = 64 * 64

// SetRef names a ListenerSet: where listeners that are not a Gateway's own came from.
type SetRef struct {
	Namespace, Name string
}

func (r SetRef) String() string { return r.Namespace + "/" + r.Name }

// Key is how a Gateway's route table and counts of attached routes name listener name of
// the ListenerSet r: namespace/name/listener, which no listener of the Gateway's own can
// be named (a listener's name has no "/").
func (r SetRef) Key(name gatewayv1.SectionName) gatewayv1.SectionName {
	return gatewayv1.SectionName(r.String() + "/" + string(name))
}

// Set is a ListenerSet whose parentRef names a Gateway, as the rules read it.
type Set struct {
	Ref SetRef
	// CreationTimestamp orders the ListenerSets of a Gateway, oldest first, after the
	// Gateway's own listeners, as the specification's precedence says.
	CreationTimestamp metav1.Time
	// Listeners are the ListenerSet's entries, in spec order, as Gateway listeners.
	Listeners []gatewayv1.Listener
	// NamespaceLabels are the labels of the ListenerSet's namespace, for a Gateway that
	// allows ListenerSets by namespace selector.
	NamespaceLabels map[string]string
	// CertificateRefs are, by listener name, the certificateRefs as they resolved from the
	// ListenerSet's namespace (attach.ResolveListenerSetCertificateRefs).
	CertificateRefs map[gatewayv1.SectionName][]CertificateRef
}

// SetOf is ls as the rules read it, its namespace having namespaceLabels; its
// certificateRefs are the caller's to resolve.
func SetOf(ls *gatewayv1.ListenerSet, namespaceLabels map[string]string) Set {
	return Set{Ref: SetRef{Namespace: ls.Namespace, Name: ls.Name}, CreationTimestamp: ls.CreationTimestamp,
		Listeners: EntriesAsListeners(ls.Spec.Listeners), NamespaceLabels: namespaceLabels}
}

// EntriesAsListeners are a ListenerSet's entries as Gateway listeners: they have the
// same fields, and the same rules apply to them.
func EntriesAsListeners(entries []gatewayv1.ListenerEntry) []gatewayv1.Listener {
	out := make([]gatewayv1.Listener, len(entries))
	for i, e := range entries {
		out[i] = gatewayv1.Listener{Name: e.Name, Hostname: e.Hostname, Port: e.Port, Protocol: e.Protocol, TLS: e.TLS, AllowedRoutes: e.AllowedRoutes}
	}
	return out
}

// SetVerdict is what the rules say of one ListenerSet on its parent Gateway.
type SetVerdict struct {
	Ref SetRef
	// Accepted tells whether the ListenerSet is attached to the Gateway: allowed, and with
	// at least one valid listener. Reason is its Accepted condition's reason: Accepted,
	// NotAllowed, or ListenersNotValid (with Accepted true when only some are not valid).
	Accepted bool
	Reason   gatewayv1.ListenerSetConditionReason
	Message  string
	// Listeners are the verdicts of its listeners, in spec order, each naming the
	// ListenerSet; none for a ListenerSet that is not allowed, which joins nothing.
	// Entries are those listeners as the spec has them, in the same order.
	Listeners []Status
	Entries   []gatewayv1.Listener
}

// EvaluateSets judges the ListenerSets naming gw as their parent, on a class that serves
// what serves says, given the verdicts of gw's own listeners (Evaluate). It returns them
// in the specification's precedence: oldest first, then by namespace/name. A ListenerSet
// is allowed by gw's spec.allowedListeners (none unless it says so) and only on a class
// that claims ListenerSet. Its listeners are judged as the Gateway's are, but a conflict
// goes against the later listener only: one of the Gateway's own listeners served on a
// port, or an accepted listener of an earlier attached ListenerSet (or earlier in the same one),
// keeps it, and the later one is refused on its own status. So a tenant's ListenerSet
// never takes a port or hostname from the Gateway or from an older ListenerSet.
// ListenerSets whose listeners would take the Gateway past MaxGatewayListeners, and
// those past MaxGatewayListenerSets, are refused whole.
func EvaluateSets(serves Serves, gw *gatewayv1.Gateway, own []Status, sets []Set) []SetVerdict {
	ordered := InPrecedence(sets)
	// taken are the listeners later ones may conflict with, by port.
	taken := map[gatewayv1.PortNumber][]*gatewayv1.Listener{}
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		if serves.refusal(l) == "" {
			taken[l.Port] = append(taken[l.Port], l)
		}
	}
	count := len(gw.Spec.Listeners)
	out := make([]SetVerdict, 0, len(ordered))
	for i := range ordered {
		set := &ordered[i]
		if i >= MaxGatewayListenerSets {
			out = append(out, pastSetBound(gw, set.Ref))
			continue
		}
		v := SetVerdict{Ref: set.Ref}
		if why := NotAllowed(serves, gw, set); why != "" {
			v.Reason, v.Message = gatewayv1.ListenerSetReasonNotAllowed, why
			out = append(out, v)
			continue
		}
		past := count+len(set.Listeners) > MaxGatewayListeners
		// ours are the set's accepted listeners; they take their ports from later
		// ListenerSets only if the set is attached.
		var ours []*gatewayv1.Listener
		for j := range set.Listeners {
			l := &set.Listeners[j]
			conflicted := gatewayv1.ListenerReasonNoConflicts
			if !past && serves.refusal(l) == "" {
				conflicted = conflictWithTaken(serves, l, append(slices.Clip(taken[l.Port]), ours...))
			}
			s := evaluate(serves, l, conflicted, set.CertificateRefs[l.Name])
			s.ListenerSet = &set.Ref
			if past {
				s.Accepted = gatewayv1.ListenerConditionReason(gatewayv1.ListenerEntryReasonTooManyListeners)
			}
			if s.IsAccepted() {
				ours = append(ours, l)
			}
			v.Listeners = append(v.Listeners, s)
		}
		v.Entries = set.Listeners
		switch {
		case past:
			v.Reason = gatewayv1.ListenerSetReasonListenersNotValid
			v.Message = fmt.Sprintf("Gateway %s/%s takes at most %d listeners, its own and its ListenerSets' together; the %d of this ListenerSet, among the newest, are past that", gw.Namespace, gw.Name, MaxGatewayListeners, len(set.Listeners))
		case !AnyValid(v.Listeners):
			v.Reason, v.Message = gatewayv1.ListenerSetReasonListenersNotValid, NotValid(v.Listeners)
		default:
			count += len(set.Listeners)
			for _, l := range ours {
				taken[l.Port] = append(taken[l.Port], l)
			}
			v.Accepted, v.Reason, v.Message = true, gatewayv1.ListenerSetReasonAccepted, "attached to Gateway "+gw.Namespace+"/"+gw.Name
			if notValid := NotValid(v.Listeners); notValid != "" {
				v.Reason, v.Message = gatewayv1.ListenerSetReasonListenersNotValid, notValid
			}
		}
		out = append(out, v)
	}
	return out
}

// conflictWithTaken is how served listener l conflicts with others (those of its
// Gateway, or those that came before it on its port): a protocol conflict outranks a
// hostname conflict.
func conflictWithTaken(serves Serves, l *gatewayv1.Listener, before []*gatewayv1.Listener) gatewayv1.ListenerConditionReason {
	reason := gatewayv1.ListenerReasonNoConflicts
	for _, other := range before {
		switch c := serves.conflictWith(l, other); c {
		case gatewayv1.ListenerReasonProtocolConflict:
			return c
		case gatewayv1.ListenerReasonHostnameConflict:
			reason = c
		}
	}
	return reason
}

// NotAllowed says why gw, of a class that serves what serves says, does not take set by
// its spec.allowedListeners, or "" when it does.
func NotAllowed(serves Serves, gw *gatewayv1.Gateway, set *Set) string {
	if !serves.ListenerSets() {
		return fmt.Sprintf("the blueprint of GatewayClass %s does not claim ListenerSet in serves.features: its Gateways take no ListenerSets", gw.Spec.GatewayClassName)
	}
	from := gatewayv1.NamespacesFromNone
	var selector *metav1.LabelSelector
	if a := gw.Spec.AllowedListeners; a != nil && a.Namespaces != nil {
		if a.Namespaces.From != nil {
			from = *a.Namespaces.From
		}
		selector = a.Namespaces.Selector
	}
	gateway := gw.Namespace + "/" + gw.Name
	switch from {
	case gatewayv1.NamespacesFromAll:
		return ""
	case gatewayv1.NamespacesFromSame:
		if set.Ref.Namespace == gw.Namespace {
			return ""
		}
		return fmt.Sprintf("Gateway %s allows ListenerSets of namespace %s only (spec.allowedListeners)", gateway, gw.Namespace)
	case gatewayv1.NamespacesFromSelector:
		s, err := metav1.LabelSelectorAsSelector(selector)
		if err == nil && selector != nil && s.Matches(labels.Set(set.NamespaceLabels)) {
			return ""
		}
		return fmt.Sprintf("Gateway %s allows ListenerSets of the namespaces its selector selects, and not namespace %s (spec.allowedListeners)", gateway, set.Ref.Namespace)
	}
	return fmt.Sprintf("Gateway %s allows no ListenerSets (spec.allowedListeners)", gateway)
}
