package render

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/values"
)

// Readiness judges a live object: whether it is ready and, when it is not, why.
type Readiness func(*unstructured.Unstructured) (ready bool, reason string)

// TemplateReadiness judges a live object that template (a name of the set judged)
// rendered. Which template that is comes from Gatewright's record of the object, or from
// the render itself, never from the object's own labels: whoever may edit the object
// may change those, and so choose the judge.
type TemplateReadiness func(obj *unstructured.Unstructured, template string) (ready bool, reason string)

// compileReadyWhen compiles the readyWhen of each template of a set, by the id of the
// template ("<set>/<name>"). A readyWhen that does not compile makes the blueprint
// unusable, as a template that does not parse does.
func compileReadyWhen(set string, templates []gatewrightv1alpha1.ResourceTemplate, into map[string]*values.Condition) error {
	for _, t := range templates {
		if t.ReadyWhen == "" {
			continue
		}
		cond, err := values.CompileCondition(t.ReadyWhen)
		if err != nil {
			return &Error{Template: set + "/" + t.Name, Message: "readyWhen " + err.Error()}
		}
		into[set+"/"+t.Name] = cond
	}
	return nil
}

// Readiness is how the blueprint judges the objects it rendered for a Gateway
// (routeKind empty) or a route of routeKind: by the readyWhen of the template that rendered one, else by judge
// (kstatus, which the caller brings, as render does not talk to the cluster). Only
// readyWhen gives a reason: it stays the same while the object does not change, where
// kstatus's counts replicas, and a reason that changed with every replica would rewrite
// the Gateway's status as often. It is nil when judge is: a render offline.
func (b *Blueprint) Readiness(routeKind string, judge Readiness) TemplateReadiness {
	if judge == nil {
		return nil
	}
	set := "gateway/"
	if routeKind != "" {
		set = routeSetName(routeKind) + "/"
	}
	budget := values.NewConditionBudget() // one translation's objects share it
	return func(obj *unstructured.Unstructured, template string) (bool, string) {
		if cond := b.readyWhen[set+template]; cond != nil {
			return readyWhen(budget, cond, obj)
		}
		ready, _ := judge(obj)
		return ready, ""
	}
}

// ReadsWhole tells which templates' objects the blueprint reads whole, for a Gateway
// (routeKind empty) or a route of routeKind: those a template, the status template or a
// helper may read of .Resources (liveReads), and those with a readyWhen, which may
// judge any field.
// The caller's cache holds other objects without their content (apply.StripContent).
func (b *Blueprint) ReadsWhole(routeKind string) func(template string) bool {
	set, reads := "gateway/", b.gatewayReadsLive.union(b.statusReadsLive)
	if routeKind != "" {
		set, reads = routeSetName(routeKind)+"/", b.routes[routeKind].readsLive
	}
	return func(template string) bool {
		return reads.of(template) || b.readyWhen[set+template] != nil
	}
}

// readyWhen judges obj by cond, charged to budget. It fails safe: an evaluation that
// fails or exceeds its bound, or the budget, leaves the object not ready, with the error
// as the reason.
func readyWhen(budget *values.ConditionBudget, cond *values.Condition, obj *unstructured.Unstructured) (bool, string) {
	ready, err := budget.Holds(cond, obj.Object)
	switch {
	case err != nil:
		return false, "readyWhen failed: " + err.Error()
	case !ready:
		return false, "readyWhen is false"
	}
	return true, ""
}
