package controllers

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/ctrlutil"
	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// ReasonNamespaceBytes is the reason of Programmed=False on a Gateway, and of
// Accepted=False on a route, whose render would take its namespace's Gateways and
// routes past --max-rendered-bytes-per-namespace.
const ReasonNamespaceBytes = "RenderedBytesPerNamespaceExceeded"

// gatewayStatus builds a Gateway's status during a reconcile; it is written once, at
// the end, and only when it changed.
type gatewayStatus struct {
	gw       *gatewayv1.Gateway
	original gatewayv1.GatewayStatus
	status   gatewayv1.GatewayStatus
	// listenerRules is what the Gateway API rules say of each listener of the spec.
	listenerRules []listeners.Status
	// listenerSets are the ListenerSets naming the Gateway as their parent, with their
	// verdicts; nil on a cluster or class without them, where attachedListenerSets stays
	// unset.
	listenerSets *gatewayListenerSets
}

// gatewayListenerSets are the ListenerSets of a Gateway and what the rules say of them
// (snapshot.Gatherer.ListenerSets); their status is written with the Gateway's, as the
// Gateway's verdict leaves it.
type gatewayListenerSets struct {
	list     []gatewayv1.ListenerSet
	items    map[listeners.SetRef]*gatewayv1.ListenerSet
	verdicts []listeners.SetVerdict
	// routes counts the routes attached to each listener of theirs, by
	// listeners.SetRef.Key.
	routes map[gatewayv1.SectionName]int32
}

// attached are the ListenerSets attached to the Gateway; none when s is nil.
func (s *gatewayListenerSets) attached() []*gatewayv1.ListenerSet {
	if s == nil {
		return nil
	}
	var out []*gatewayv1.ListenerSet
	for _, v := range s.verdicts {
		if v.Accepted {
			out = append(out, s.items[v.Ref])
		}
	}
	return out
}

// newGatewayStatus starts the status of gw, whose listeners the rules judged as judged
// says (snapshot.Gatherer.Listeners).
func newGatewayStatus(gw *gatewayv1.Gateway, judged []listeners.Status) *gatewayStatus {
	return &gatewayStatus{gw: gw, original: *gw.Status.DeepCopy(), status: *gw.Status.DeepCopy(), listenerRules: judged}
}

func (s *gatewayStatus) set(conditionType gatewayv1.GatewayConditionType, ok bool, reason gatewayv1.GatewayConditionReason, message string) {
	conditions.Set(&s.status.Conditions, string(conditionType), ok, string(reason), message, s.gw.Generation)
}

// accepted accepts the Gateway when at least one of its listeners is valid; the
// message names the listeners that are not, as the spec asks.
func (s *gatewayStatus) accepted() {
	switch notValid := listeners.NotValid(s.listenerRules); {
	case notValid == "":
		s.set(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonAccepted, "")
	case listeners.AnyValid(s.listenerRules):
		s.set(gatewayv1.GatewayConditionAccepted, true, gatewayv1.GatewayReasonListenersNotValid, notValid)
	default:
		s.set(gatewayv1.GatewayConditionAccepted, false, gatewayv1.GatewayReasonListenersNotValid, notValid)
	}
}

// notAccepted refuses the Gateway for a reason outside it (its class is missing or
// being deleted, its blueprint is missing): nothing is programmed for it any more, and
// the addresses it had are no longer promised.
func (s *gatewayStatus) notAccepted(reason gatewayv1.GatewayConditionReason, message string) {
	s.set(gatewayv1.GatewayConditionAccepted, false, reason, message)
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, "the Gateway is not accepted: "+message)
	s.attach(nil)
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	s.status.Addresses = nil
}

// unchanged drops what this round found: it is retried at once, and a half-built status
// (listeners without conditions) must not be written.
func (s *gatewayStatus) unchanged() {
	s.status = *s.original.DeepCopy()
}

// noValidListener reports a Gateway none of whose listeners is valid: the specification
// rejects it as a whole, so nothing is rendered, and what was applied before stays.
func (s *gatewayStatus) noValidListener() bool {
	if listeners.AnyValid(s.listenerRules) {
		return false
	}
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid,
		listeners.NotValid(s.listenerRules)+"; nothing is rendered, the objects applied before are left as they are")
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	return true
}

// fail maps an error reading the inputs: a reference that cannot be used refuses the
// Gateway; anything else is retried. The conditions are the pipeline's
// (translate.Result), so that what the controller writes is what gatewright diff
// predicts.
func (s *gatewayStatus) fail(err error) (ctrl.Result, error) {
	res := &translate.Result{Err: err}
	if !res.Refused() {
		return ctrl.Result{}, err
	}
	s.set(gatewayv1.GatewayConditionAccepted, false, gatewayv1.GatewayReasonInvalidParameters, err.Error())
	s.setProgrammed(res.Programmed())
	s.attach(nil)
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	return ctrl.Result{}, nil
}

// invalid reports values or render errors. Nothing was applied or pruned; the
// Gateway's objects stay as they are until the input is fixed (or, for a failure to
// read the live objects, until the retry).
func (s *gatewayStatus) invalid(err error) (ctrl.Result, error) {
	if renderStopped(err) {
		s.unchanged()
		return ctrl.Result{}, err
	}
	res := &translate.Result{Err: err}
	if res.Refused() {
		return s.fail(err)
	}
	s.setProgrammed(res.Programmed())
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	if isInputError(err) {
		return ctrl.Result{}, nil // a change of the input triggers the next attempt
	}
	return ctrl.Result{}, err // reading live objects failed: retry
}

func (s *gatewayStatus) setProgrammed(v translate.Verdict) {
	s.set(gatewayv1.GatewayConditionProgrammed, v.OK, gatewayv1.GatewayConditionReason(v.Reason), v.Message)
}

// overNamespaceBytes reports a render refused because the Gateways of the namespace
// would hold too many bytes together. Nothing was applied or pruned: the objects of the
// last render stay. Room made in the namespace brings the Gateway back (namespaceBytes).
func (s *gatewayStatus) overNamespaceBytes(err error) (ctrl.Result, error) {
	s.set(gatewayv1.GatewayConditionProgrammed, false, ReasonNamespaceBytes, err.Error())
	s.setListeners(false, gatewayv1.ListenerReasonPending)
	return ctrl.Result{}, nil
}

func (s *gatewayStatus) applyFailed(err error) (ctrl.Result, error) {
	s.set(gatewayv1.GatewayConditionProgrammed, false, gatewayv1.GatewayReasonInvalid, "apply failed, nothing was pruned: "+err.Error())
	s.setListeners(false, gatewayv1.ListenerReasonInvalid)
	var conflict *apply.ConflictError
	if errors.As(err, &conflict) || isInputError(err) {
		return ctrl.Result{}, nil // retried when the conflicting object or the input changes
	}
	return ctrl.Result{}, err
}

// programmed reports the outcome of a successful apply of res, whose output is what
// this round's apply left (settle), notReady the applied objects not ready yet. The
// addresses are what the blueprint's status template says: set when it rendered, left
// as they are while anything waits, and cleared when the blueprint has no status
// template, since nothing would ever correct them.
func (s *gatewayStatus) programmed(res *translate.Result, notReady []string, hasStatusTemplate bool) {
	if !hasStatusTemplate {
		s.status.Addresses = nil
	}
	v := res.Programmed(notReady...)
	s.setProgrammed(v)
	if !v.OK {
		s.setListeners(false, gatewayv1.ListenerReasonPending)
		return
	}
	s.setListeners(true, gatewayv1.ListenerReasonProgrammed)
	if res.Output.StatusRendered {
		s.status.Addresses = res.Output.Addresses
	}
}

// patchStatus writes the status when it changed, with short messages when the API
// server refuses it.
func (r *GatewayReconciler) patchStatus(ctx context.Context, gw *gatewayv1.Gateway, s *gatewayStatus) error {
	if s.listenerSets == nil {
		return ctrlutil.WriteStatus(ctx, r.Client, gw, s.original, s.status, shortGatewayMessages)
	}
	accepted := meta.IsStatusConditionTrue(s.status.Conditions, string(gatewayv1.GatewayConditionAccepted))
	programmed := meta.IsStatusConditionTrue(s.status.Conditions, string(gatewayv1.GatewayConditionProgrammed))
	attached := int32(0)
	var errs []error
	// Each ListenerSet's status is its own write: one that cannot be written (its
	// tenant's object is gone, say) keeps neither the Gateway's nor another's from being.
	for _, v := range s.listenerSets.verdicts {
		ls := s.listenerSets.items[v.Ref]
		status := listenerSetStatus(ls, v, s.listenerSets.routes, accepted, programmed)
		if meta.IsStatusConditionTrue(status.Conditions, string(gatewayv1.ListenerSetConditionAccepted)) {
			attached++
		}
		errs = append(errs, ctrlutil.WriteStatus(ctx, r.Client, ls, ls.Status, status, shortListenerSetMessages))
	}
	// Left unset on a Gateway no ListenerSet ever named: its status stays as it was.
	if len(s.listenerSets.verdicts) > 0 || s.status.AttachedListenerSets != nil {
		s.status.AttachedListenerSets = &attached
	}
	return errors.Join(append(errs, ctrlutil.WriteStatus(ctx, r.Client, gw, s.original, s.status, shortGatewayMessages))...)
}

// ReasonParentNotProgrammed is the reason of Programmed=False on an accepted ListenerSet
// whose Gateway is not programmed, as the ListenerSet's type documents it.
const ReasonParentNotProgrammed = "ParentNotProgrammed"

// listenerSetStatus is the status of ls, whose verdict on its Gateway is v, the Gateway
// being accepted and programmed as gatewayAccepted and gatewayProgrammed say. A
// ListenerSet the rules accept is not accepted while its Gateway is not
// (ParentNotAccepted), and is programmed when the Gateway is, its valid listeners with
// it. The status of one the rules refuse does not depend on the Gateway's, so that
// however many a tenant piles on a Gateway, a change of the Gateway's conditions rewrites
// only those attached (at most MaxGatewayListeners).
func listenerSetStatus(ls *gatewayv1.ListenerSet, v listeners.SetVerdict, attachedRoutes map[gatewayv1.SectionName]int32, gatewayAccepted, gatewayProgrammed bool) gatewayv1.ListenerSetStatus {
	status := *ls.Status.DeepCopy()
	set := func(t gatewayv1.ListenerSetConditionType, ok bool, reason gatewayv1.ListenerSetConditionReason, message string) {
		conditions.Set(&status.Conditions, string(t), ok, string(reason), message, ls.Generation)
	}
	accepted, reason, message := v.Accepted, v.Reason, v.Message
	if accepted && !gatewayAccepted {
		accepted, reason, message = false, gatewayv1.ListenerSetReasonParentNotAccepted, "its parent Gateway is not accepted"
	}
	set(gatewayv1.ListenerSetConditionAccepted, accepted, reason, message)
	switch {
	case !accepted:
		set(gatewayv1.ListenerSetConditionProgrammed, false, reason, message)
	case gatewayProgrammed:
		set(gatewayv1.ListenerSetConditionProgrammed, true, gatewayv1.ListenerSetReasonProgrammed, "")
	default:
		set(gatewayv1.ListenerSetConditionProgrammed, false, ReasonParentNotProgrammed, "its parent Gateway is not programmed")
	}
	previous := status.Listeners
	status.Listeners = nil
	for _, rules := range v.Listeners {
		l := gatewayv1.ListenerEntryStatus{Name: rules.Name, SupportedKinds: rules.SupportedKinds, AttachedRoutes: attachedRoutes[v.Ref.Key(rules.Name)]}
		for _, p := range previous {
			if p.Name == rules.Name {
				l.Conditions = p.Conditions
			}
		}
		programmedReason := gatewayv1.ListenerReasonProgrammed
		if !accepted || !gatewayProgrammed {
			programmedReason = gatewayv1.ListenerReasonPending
		}
		setListenerConditions(&l.Conditions, rules, accepted && gatewayProgrammed, programmedReason, ls.Generation)
		status.Listeners = append(status.Listeners, l)
	}
	return status
}

// shortListenerSetMessages returns a copy of status with every message cut short.
func shortListenerSetMessages(status gatewayv1.ListenerSetStatus) gatewayv1.ListenerSetStatus {
	short := *status.DeepCopy()
	short.Conditions = conditions.Short(short.Conditions)
	for i := range short.Listeners {
		short.Listeners[i].Conditions = conditions.Short(short.Listeners[i].Conditions)
	}
	return short
}

// shortGatewayMessages returns a copy of status with every message cut short.
func shortGatewayMessages(status gatewayv1.GatewayStatus) gatewayv1.GatewayStatus {
	short := *status.DeepCopy()
	short.Conditions = conditions.Short(short.Conditions)
	for i := range short.Listeners {
		short.Listeners[i].Conditions = conditions.Short(short.Listeners[i].Conditions)
	}
	return short
}

// affected sets the gatewright.dev/...Affected conditions naming the policies that
// change the Gateway's values, and removes them when none does.
func (s *gatewayStatus) affected(policies []values.PolicyReport) {
	translate.SetAffected(&s.status.Conditions, s.gw.Generation, policies)
}

// attach records the listeners with their supported kinds and attached routes.
func (s *gatewayStatus) attach(attached map[gatewayv1.SectionName]int32) {
	out := make([]gatewayv1.ListenerStatus, 0, len(s.listenerRules))
	for _, rules := range s.listenerRules {
		status := gatewayv1.ListenerStatus{Name: rules.Name, AttachedRoutes: attached[rules.Name], SupportedKinds: rules.SupportedKinds}
		for _, previous := range s.status.Listeners {
			if previous.Name == rules.Name {
				status.Conditions = previous.Conditions
			}
		}
		out = append(out, status)
	}
	s.status.Listeners = out
}

// setListeners sets the conditions of every listener. programmed and reason say how
// the Gateway's objects fared; a listener that is not valid is not programmed whatever
// they say.
func (s *gatewayStatus) setListeners(programmed bool, reason gatewayv1.ListenerConditionReason) {
	for i := range s.status.Listeners {
		l := &s.status.Listeners[i]
		rules, ok := s.rulesOf(l.Name)
		if !ok {
			continue // a listener gone from the spec; attach drops it
		}
		setListenerConditions(&l.Conditions, rules, programmed, reason, s.gw.Generation)
	}
}

// setListenerConditions sets the conditions of a listener, of a Gateway or a
// ListenerSet of generation, of which the rules say what rules says; programmed and
// reason say how the Gateway's objects fared.
func setListenerConditions(conds *[]metav1.Condition, rules listeners.Status, programmed bool, reason gatewayv1.ListenerConditionReason, generation int64) {
	set := func(t gatewayv1.ListenerConditionType, ok bool, reason gatewayv1.ListenerConditionReason, message string) {
		conditions.Set(conds, string(t), ok, string(reason), message, generation)
	}
	set(gatewayv1.ListenerConditionAccepted, rules.IsAccepted(), rules.Accepted, "")
	set(gatewayv1.ListenerConditionResolvedRefs, rules.ResolvedRefs == gatewayv1.ListenerReasonResolvedRefs, rules.ResolvedRefs, rules.ResolvedRefsMessage)
	// The API says a listener without Conflicted has no conflicts; leaving it out
	// keeps every Gateway's status, written and watched, smaller.
	if rules.Conflicted == gatewayv1.ListenerReasonNoConflicts {
		meta.RemoveStatusCondition(conds, string(gatewayv1.ListenerConditionConflicted))
	} else {
		set(gatewayv1.ListenerConditionConflicted, true, rules.Conflicted, "")
	}
	if rules.IsValid() {
		set(gatewayv1.ListenerConditionProgrammed, programmed, reason, "")
	} else {
		set(gatewayv1.ListenerConditionProgrammed, false, rules.NotProgrammedReason(), "")
	}
}

func (s *gatewayStatus) rulesOf(name gatewayv1.SectionName) (listeners.Status, bool) {
	for _, rules := range s.listenerRules {
		if rules.Name == name {
			return rules, true
		}
	}
	return listeners.Status{}, false
}
