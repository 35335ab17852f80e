package translate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/listeners"
	"github.com/gatewright/gatewright/internal/routes"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// caseResult is a .out.yaml: what the pipeline decides about a Gateway, the routes that
// name it and the policies of the case. Verdicts read as conditions do,
// "Status/Reason: message"; durations and other figures that change from run to run
// are left out.
type caseResult struct {
	Gateway   string           `json:"gateway"`
	Listeners []listenerResult `json:"listeners"`
	Result    translation      `json:"result"`
	Routes    []routeResult    `json:"routes,omitempty"`
	Policies  []policyResult   `json:"policies,omitempty"`
}

// listenerResult is what the Gateway API rules say of a listener; Programmed is said
// only of one that is not valid, since a valid one is programmed with the Gateway.
type listenerResult struct {
	Name            string   `json:"name"`
	Accepted        string   `json:"accepted"`
	ResolvedRefs    string   `json:"resolvedRefs"`
	Conflicted      string   `json:"conflicted,omitempty"`
	Programmed      string   `json:"programmed,omitempty"`
	SupportedKinds  []string `json:"supportedKinds"`
	CertificateRefs []string `json:"certificateRefs,omitempty"`
	AttachedRoutes  int32    `json:"attachedRoutes"`
}

// translation is a translate.Result, or why the pipeline did not run (Skipped).
type translation struct {
	Skipped    string `json:"skipped,omitempty"`
	ErrorClass string `json:"errorClass,omitempty"`
	Error      string `json:"error,omitempty"`
	// Refused says that the Gateway is not accepted: Accepted=False/InvalidParameters.
	Refused    bool   `json:"refused,omitempty"`
	Programmed string `json:"programmed,omitempty"`
	// Accepted is a route's Accepted condition on the Gateway; Refusal, why its own
	// templates refused it, which leaves it out of the Gateway's route table.
	Accepted   string           `json:"accepted,omitempty"`
	Refusal    string           `json:"refusal,omitempty"`
	Affected   []string         `json:"affected,omitempty"`
	Warnings   []string         `json:"warnings,omitempty"`
	Unused     []string         `json:"unused,omitempty"`
	Values     map[string]any   `json:"values,omitempty"`
	Provenance []string         `json:"provenance,omitempty"`
	Policies   []policyReport   `json:"policies,omitempty"`
	Objects    []map[string]any `json:"objects,omitempty"`
	Waiting    []string         `json:"waiting,omitempty"`
	Addresses  []string         `json:"addresses,omitempty"`
	// RouteTable is the Gateway's routing.Table without its empty fields.
	RouteTable any    `json:"routeTable,omitempty"`
	Cutoff     string `json:"cutoff,omitempty"`
}

// policyReport is a values.PolicyReport: what of one policy took effect in the chain.
type policyReport struct {
	Source        string   `json:"source"`
	Levels        []int    `json:"levels"`
	State         string   `json:"state"`
	Leaves        int      `json:"leaves"`
	Overridden    []string `json:"overridden,omitempty"`
	NotApplied    []string `json:"notApplied,omitempty"`
	FailedClosed  []string `json:"failedClosed,omitempty"`
	RefusedUnsets []string `json:"refusedUnsets,omitempty"`
}

// routeResult is what the controller decides of a route on the Gateway: per parentRef
// naming it, Accepted and where it attaches, and its translation where it attaches.
type routeResult struct {
	// Kind is the route's kind; empty for an HTTPRoute.
	Kind         string         `json:"kind,omitempty"`
	Route        string         `json:"route"`
	Parents      []parentResult `json:"parents"`
	ResolvedRefs string         `json:"resolvedRefs"`
	Result       *translation   `json:"result,omitempty"`
}

type parentResult struct {
	ParentRef string   `json:"parentRef"`
	Accepted  string   `json:"accepted"`
	Listeners []string `json:"listeners,omitempty"`
}

// policyResult is a policy's status.ancestors: its verdicts on each target.
type policyResult struct {
	Policy    string           `json:"policy"`
	Ancestors []ancestorResult `json:"ancestors,omitempty"`
}

type ancestorResult struct {
	Target     string `json:"target"`
	Accepted   string `json:"accepted"`
	Programmed string `json:"programmed"`
	// Enforced is Programmed's deprecated twin, written beside it for one minor release.
	Enforced string `json:"enforced"`
}

func listenersOf(judged []listeners.Status, attached map[gatewayv1.SectionName]int32) []listenerResult {
	out := make([]listenerResult, 0, len(judged))
	for _, l := range judged {
		r := listenerResult{
			Name:           string(l.Name),
			Accepted:       condition(l.IsAccepted(), string(l.Accepted), ""),
			ResolvedRefs:   condition(l.ResolvedRefs == gatewayv1.ListenerReasonResolvedRefs, string(l.ResolvedRefs), l.ResolvedRefsMessage),
			SupportedKinds: []string{},
			AttachedRoutes: attached[l.Name],
		}
		if l.Conflicted != gatewayv1.ListenerReasonNoConflicts {
			r.Conflicted = condition(true, string(l.Conflicted), "")
		}
		if !l.IsValid() {
			r.Programmed = condition(false, string(l.NotProgrammedReason()), "")
		}
		for _, k := range l.SupportedKinds {
			r.SupportedKinds = append(r.SupportedKinds, string(k.Kind))
		}
		for _, ref := range l.CertificateRefs {
			r.CertificateRefs = append(r.CertificateRefs, ref.Namespace+"/"+ref.Name+": "+condition(ref.Resolved(), string(ref.Reason), ref.Message))
		}
		out = append(out, r)
	}
	return out
}

// gatewayTranslation is res as the Gateway's result: whether it is refused, and its
// Programmed condition.
func gatewayTranslation(res *translate.Result) translation {
	out := translationOf(res)
	out.Refused = res.Refused()
	if res.Err != nil || res.Output != nil {
		out.Programmed = verdict(res.Programmed())
	}
	if res.Table != nil {
		out.RouteTable = withoutEmpty(res.Table)
	}
	if res.Cutoff != nil {
		out.Cutoff = fmt.Sprintf("%s/%s: %s", res.Cutoff.Namespace, res.Cutoff.Name, res.Cutoff.Message)
	}
	return out
}

// translationOf is what res says of a Gateway or a route alike.
func translationOf(res *translate.Result) translation {
	out := translation{ErrorClass: errorClass(res.Err), Warnings: res.Warnings()}
	if res.Err != nil {
		out.Error = res.Err.Error()
	}
	for _, u := range res.Unused() {
		out.Unused = append(out.Unused, u.Note()+" set by "+u.Origin.String())
	}
	if res.Values != nil {
		out.Values = res.Values.Values
		for _, leaf := range res.Values.Provenance {
			out.Provenance = append(out.Provenance, provenanceLine(leaf))
		}
		for _, report := range res.Values.Policies {
			out.Policies = append(out.Policies, policyReportOf(report))
		}
		var conds []metav1.Condition
		translate.SetAffected(&conds, 0, res.Values.Policies)
		slices.SortFunc(conds, func(a, b metav1.Condition) int { return strings.Compare(a.Type, b.Type) })
		for _, c := range conds {
			out.Affected = append(out.Affected, c.Type+": "+condition(c.Status == metav1.ConditionTrue, c.Reason, c.Message))
		}
	}
	if res.Output != nil {
		for _, obj := range res.Output.Objects {
			out.Objects = append(out.Objects, obj.Object)
		}
		for _, w := range res.Output.Waiting {
			out.Waiting = append(out.Waiting, w.String())
		}
		for _, a := range res.Output.Addresses {
			out.Addresses = append(out.Addresses, a.Value)
		}
	}
	return out
}

// provenanceLine reads `path = value from <origin>`, with where a value went when it
// is not in the values.
func provenanceLine(leaf values.Leaf) string {
	value, _ := json.Marshal(leaf.Value)
	switch {
	case leaf.Unset:
		return fmt.Sprintf("%s unset by %s", leaf.Path, leaf.Origin)
	case leaf.DroppedBy != nil:
		return fmt.Sprintf("%s = %s from %s, dropped for %s", leaf.Path, value, leaf.Origin, leaf.DroppedBy)
	}
	return fmt.Sprintf("%s = %s from %s", leaf.Path, value, leaf.Origin)
}

func policyReportOf(r values.PolicyReport) policyReport {
	out := policyReport{Source: r.Source.String(), State: string(r.State()), Leaves: r.Leaves}
	for _, l := range r.Levels {
		out.Levels = append(out.Levels, int(l))
	}
	for _, o := range r.Overridden {
		out.Overridden = append(out.Overridden, fmt.Sprintf("%s (%s) by %s, strategy %s", o.Path, o.As, o.By, o.Strategy))
	}
	for _, n := range r.NotApplied {
		out.NotApplied = append(out.NotApplied, fmt.Sprintf("%s at level %d", n.As, n.Level))
	}
	for _, f := range r.FailedClosed {
		out.FailedClosed = append(out.FailedClosed, fmt.Sprintf("%s at level %d: %s", f.As, f.Level, f.Error))
	}
	for _, u := range r.RefusedUnsets {
		value, _ := json.Marshal(u.Value)
		out.RefusedUnsets = append(out.RefusedUnsets, fmt.Sprintf("%s (%s) would remove %s set by %s", u.Path, u.As, value, u.SetBy))
	}
	return out
}

// errorClass names translate.Classify's class of err.
func errorClass(err error) string {
	return map[translate.ErrorClass]string{
		translate.NoError:    "NoError",
		translate.InputError: "InputError",
		translate.Transient:  "Transient",
		translate.Conflict:   "Conflict",
	}[translate.Classify(err)]
}

// condition reads "True/Reason" or "False/Reason: message".
func condition(ok bool, reason, message string) string {
	status := "False"
	if ok {
		status = "True"
	}
	if message == "" {
		return status + "/" + reason
	}
	return status + "/" + reason + ": " + message
}

func verdict(v translate.Verdict) string { return condition(v.OK, v.Reason, v.Message) }

// parentRefString reads namespace/name, then /sectionName and :port when the
// parentRef gives them.
func parentRefString(route routes.Route, ref gatewayv1.ParentReference) string {
	namespace := route.GetNamespace()
	if ref.Namespace != nil {
		namespace = string(*ref.Namespace)
	}
	s := namespace + "/" + string(ref.Name)
	if ref.SectionName != nil {
		s += "/" + string(*ref.SectionName)
	}
	if ref.Port != nil {
		s += fmt.Sprintf(":%d", *ref.Port)
	}
	return s
}

// withoutEmpty is v as JSON data without its nulls, empty strings, lists and objects:
// the route table's JSON form spells out every field, most of them empty.
func withoutEmpty(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // the route table's types always marshal
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		panic(err)
	}
	return prune(generic)
}

func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, item := range v {
			if item = prune(item); item != nil {
				out[k] = item
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		var out []any
		for _, item := range v {
			if item = prune(item); item != nil {
				out = append(out, item)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if v == "" {
			return nil
		}
	}
	return v
}

// marshalOrdered writes v as YAML in the order of its struct fields (its JSON form,
// map keys sorted), in block style throughout.
func marshalOrdered(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		return nil, err
	}
	blockStyle(&node)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&node); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
}

// blockStyle drops the flow style and quotes that JSON's syntax gave every node, so
// that the encoder quotes only what needs it; a list of a few short scalars (levels,
// listener names, kinds) stays on one line.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && yaml11Bools[strings.ToLower(n.Value)] {
		n.Style = yaml.DoubleQuotedStyle // a YAML 1.1 reader would take it for a boolean
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
	if n.Kind == yaml.SequenceNode && len(n.Content) <= 4 && !slices.ContainsFunc(n.Content, func(c *yaml.Node) bool {
		return c.Kind != yaml.ScalarNode || len(c.Value) > 24 || strings.ContainsAny(c.Value, ":,#'\"[]{}")
	}) {
		n.Style = yaml.FlowStyle
	}
}

var yaml11Bools = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true}
