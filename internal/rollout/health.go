package rollout

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/attach"
	"github.com/gatewright/gatewright/internal/routes"
)

// maxReason bounds Healthy's reason, in bytes, so a failure message built from it stays
// within the status's bound.
const maxReason = 512

// Health is what Healthy says of a Gateway on a revision.
type Health struct {
	OK bool
	// Reason names the first thing that is not healthy: one a revision may cause when
	// there is one, else one in the tenant's control.
	Reason string
	// Since is when a healthy Gateway became so without a break, as far as the objects
	// record it.
	Since time.Time
	// TenantOnly says that all that is not healthy is in the tenant's control and no
	// revision changes it: a listener's certificate, or a route's backends, that do not
	// resolve (the tenant's Secrets, Services and ReferenceGrants).
	TenantOnly bool
}

// Healthy says whether gw is healthy on revision target, by the Gateway API's own
// conditions: the Gateway Accepted and Programmed at its generation (Programmed covers
// every rendered object being ready), each listener Accepted, Programmed and ResolvedRefs,
// each of routes (those of every kind attached to gw) Accepted and ResolvedRefs in Gatewright's
// status for gw, and rendering (the Gateway's part 0) recording target. Since is the
// latest of the first render of target and the last turn to True of each of those
// conditions but ResolvedRefs, which only the tenant's references turn.
func Healthy(gw *gatewayv1.Gateway, routes []routes.Route, rendering *gatewrightv1alpha1.Rendering, target int64) Health {
	j := &judgement{}
	j.gateway(gw, rendering, target)
	if j.revision == "" {
		j.routes(gw, routes)
	}
	reason := cmp.Or(j.revision, j.tenant)
	if len(reason) > maxReason {
		reason = strings.ToValidUTF8(reason[:maxReason-3], "") + "..."
	}
	if reason != "" {
		return Health{Reason: reason, TenantOnly: j.revision == ""}
	}
	if rendering.RevisionSince != nil {
		j.latest.see(rendering.RevisionSince.Time)
	}
	return Health{OK: true, Since: time.Time(j.latest)}
}

// judgement collects what is not healthy: the first thing a revision may cause, the
// first thing only the tenant causes, and the latest turn to True seen.
type judgement struct {
	revision, tenant string
	latest           latestTransition
}

// tenantCaused notes a failure in the tenant's control, the first one only.
func (j *judgement) tenantCaused(why string) {
	if j.tenant == "" {
		j.tenant = why
	}
}

// latestTransition is the latest time seen.
type latestTransition time.Time

func (l *latestTransition) see(t time.Time) {
	if t.After(time.Time(*l)) {
		*l = latestTransition(t)
	}
}

// gateway judges gw itself, its record and its listeners.
func (j *judgement) gateway(gw *gatewayv1.Gateway, rendering *gatewrightv1alpha1.Rendering, target int64) {
	if why := certificatesMissing(gw); why != "" {
		// No listener is valid, so nothing renders and the Gateway is not programmed:
		// for its tenant's Secrets, whatever revision it runs.
		j.tenantCaused(why)
		return
	}
	switch {
	case rendering == nil || rendering.Revision != target:
		j.revision = notRendered(gw, rendering, target)
		return
	}
	// The Rendering records each object's readiness in the write that records the
	// revision: the Gateway's Programmed may still be the last revision's.
	for _, o := range rendering.Objects {
		if !o.Ready {
			j.revision = fmt.Sprintf("%s %s is not ready", o.Kind, objectName(o))
			return
		}
	}
	for _, condition := range []string{string(gatewayv1.GatewayConditionAccepted), string(gatewayv1.GatewayConditionProgrammed)} {
		if why := notTrue(gw.Status.Conditions, condition, gw.Generation, &j.latest); why != "" {
			j.revision = "Gateway " + why
			return
		}
	}
	listeners := make(map[gatewayv1.SectionName][]metav1.Condition, len(gw.Status.Listeners))
	for _, l := range gw.Status.Listeners {
		listeners[l.Name] = l.Conditions
	}
	for _, l := range gw.Spec.Listeners {
		conditions, ok := listeners[l.Name]
		if !ok {
			j.revision = fmt.Sprintf("listener %s has no status", l.Name)
			return
		}
		resolved := notTrue(conditions, string(gatewayv1.ListenerConditionResolvedRefs), 0, nil)
		if resolved != "" && certificateRefsFail(conditions) {
			// Not programmed either, for the same reason: its tenant's Secret.
			j.tenantCaused(fmt.Sprintf("listener %s %s", l.Name, resolved))
			continue
		}
		for _, condition := range []gatewayv1.ListenerConditionType{gatewayv1.ListenerConditionAccepted, gatewayv1.ListenerConditionProgrammed} {
			if why := notTrue(conditions, string(condition), 0, &j.latest); why != "" {
				j.revision = fmt.Sprintf("listener %s %s", l.Name, why)
				return
			}
		}
		if resolved != "" {
			j.revision = fmt.Sprintf("listener %s %s", l.Name, resolved)
			return
		}
	}
}

// notRendered says why gw's objects are not rendered from target: the render's own
// error when the Gateway reports one (Programmed False, Invalid, at its generation).
func notRendered(gw *gatewayv1.Gateway, rendering *gatewrightv1alpha1.Rendering, target int64) string {
	if c := meta.FindStatusCondition(gw.Status.Conditions, string(gatewayv1.GatewayConditionProgrammed)); c != nil &&
		c.Status == metav1.ConditionFalse && c.Reason == string(gatewayv1.GatewayReasonInvalid) && c.ObservedGeneration == gw.Generation {
		return fmt.Sprintf("it does not render from revision %d: %s", target, c.Message)
	}
	if rendering == nil {
		return "its objects are not rendered yet"
	}
	return fmt.Sprintf("its objects were rendered from revision %d, not %d", rendering.Revision, target)
}

// certificatesMissing says why, when every listener of gw lacks its certificate (its
// ResolvedRefs is False for it); "" otherwise.
func certificatesMissing(gw *gatewayv1.Gateway) string {
	first := ""
	for _, l := range gw.Spec.Listeners {
		i := slices.IndexFunc(gw.Status.Listeners, func(s gatewayv1.ListenerStatus) bool { return s.Name == l.Name })
		if i < 0 {
			return ""
		}
		conditions := gw.Status.Listeners[i].Conditions
		why := notTrue(conditions, string(gatewayv1.ListenerConditionResolvedRefs), 0, nil)
		if why == "" || !certificateRefsFail(conditions) {
			return ""
		}
		if first == "" {
			first = fmt.Sprintf("listener %s %s", l.Name, why)
		}
	}
	return first
}

// certificateRefsFail says whether a listener's ResolvedRefs is False for its
// certificates (a Secret missing or not granted), which its tenant holds.
func certificateRefsFail(conditions []metav1.Condition) bool {
	c := meta.FindStatusCondition(conditions, string(gatewayv1.ListenerConditionResolvedRefs))
	switch gatewayv1.ListenerConditionReason(c.Reason) {
	case gatewayv1.ListenerReasonInvalidCertificateRef, gatewayv1.ListenerReasonRefNotPermitted:
		return true
	}
	return false
}

// routes judges the routes of gw's own namespace that attach to gw. A route of another
// namespace does not gate: its tenant could otherwise hold or roll back another
// tenant's wave with a route of its own. Nor does a parent the listeners refuse, a
// verdict no revision changes. A route whose backends do not resolve fails in its
// tenant's control (its Services, its ReferenceGrants).
func (j *judgement) routes(gw *gatewayv1.Gateway, attached []routes.Route) {
	for _, route := range attached {
		if route.GetNamespace() != gw.Namespace {
			continue
		}
		name := routes.KeyOf(route).String()
		seen := false
		for _, parent := range routes.Status(route).Parents {
			if !gatewrightv1alpha1.IsGatewright(parent.ControllerName) || !attach.RefersTo(route, parent.ParentRef, gw) {
				continue
			}
			seen = true
			if notAttached(parent.Conditions) {
				continue
			}
			if why := notTrue(parent.Conditions, string(gatewayv1.RouteConditionAccepted), 0, &j.latest); why != "" {
				j.revision = name + " " + why
				return
			}
			if why := notTrue(parent.Conditions, string(gatewayv1.RouteConditionResolvedRefs), 0, nil); why != "" {
				j.tenantCaused(name + " " + why)
			}
		}
		if !seen {
			j.revision = name + " has no status for this Gateway yet"
			return
		}
	}
}

// notAttached says whether a route's parent status says the Gateway's listeners refuse it.
func notAttached(conditions []metav1.Condition) bool {
	c := meta.FindStatusCondition(conditions, string(gatewayv1.RouteConditionAccepted))
	if c == nil || c.Status != metav1.ConditionFalse {
		return false
	}
	switch gatewayv1.RouteConditionReason(c.Reason) {
	case gatewayv1.RouteReasonNotAllowedByListeners, gatewayv1.RouteReasonNoMatchingListenerHostname, gatewayv1.RouteReasonNoMatchingParent:
		return true
	}
	return false
}

// notTrue is "" when conditionType is True (at generation, unless generation is 0),
// and then sees when it turned True (unless latest is nil); else it says what it is
// instead.
func notTrue(conditions []metav1.Condition, conditionType string, generation int64, latest *latestTransition) string {
	c := meta.FindStatusCondition(conditions, conditionType)
	switch {
	case c == nil:
		return conditionType + " is not reported"
	case c.Status != metav1.ConditionTrue:
		return fmt.Sprintf("%s is %s (%s): %s", conditionType, c.Status, c.Reason, c.Message)
	case generation != 0 && c.ObservedGeneration != generation:
		return fmt.Sprintf("%s is for generation %d, not %d", conditionType, c.ObservedGeneration, generation)
	}
	if latest != nil {
		latest.see(c.LastTransitionTime.Time)
	}
	return ""
}

func objectName(o gatewrightv1alpha1.RenderedObject) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}
