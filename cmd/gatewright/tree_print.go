package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// gatewayTree is what `tree gateway` shows: the Gateway, its class and blueprint, the
// objects rendered for it and the HTTPRoutes rendered on it.
type gatewayTree struct {
	Gateway      treeNode  `json:"gateway"`
	GatewayClass treeNode  `json:"gatewayClass"`
	Blueprint    *treeNode `json:"blueprint,omitempty"`
	// Revision is the blueprint revision the Gateway's objects were rendered from (0 for
	// a blueprint's spec before it had revisions); TargetRevision is the one a rollout
	// assigned the Gateway, if any.
	Revision       int64            `json:"revision,omitempty"`
	TargetRevision int64            `json:"targetRevision,omitempty"`
	Objects        []treeObject     `json:"objects"`
	HTTPRoutes     []routeOnGateway `json:"httpRoutes"`
	// NotRendered says why nothing was rendered for the Gateway; empty once it has a
	// Rendering.
	NotRendered string `json:"notRendered,omitempty"`
	// Partial tells that HTTPRoutes on the Gateway may be missing: Unread says what could
	// not be read (tree --partial).
	Partial bool     `json:"partial,omitempty"`
	Unread  []string `json:"unread,omitempty"`
}

// routeTree is what `tree httproute` (or another route kind) shows: the route's objects
// per parent Gateway.
type routeTree struct {
	// Kind is the route's kind, empty for an HTTPRoute; HTTPRoute its namespace/name.
	Kind      string           `json:"kind,omitempty"`
	HTTPRoute string           `json:"httpRoute"`
	Parents   []routeOnGateway `json:"parents"`
}

// routeOnGateway is a route on one parent Gateway, with the objects rendered for it
// there.
type routeOnGateway struct {
	// Kind is the route's kind, empty for an HTTPRoute; HTTPRoute its namespace/name.
	Kind      string `json:"kind,omitempty"`
	HTTPRoute string `json:"httpRoute"`
	Gateway   string `json:"gateway"`
	// Conditions are the route's status for this Gateway.
	Conditions []treeCondition `json:"conditions"`
	// Missing tells that the route is gone while its Rendering remains.
	Missing bool         `json:"missing,omitempty"`
	Objects []treeObject `json:"objects"`
}

// treeNode is a Gateway API or Gatewright object the rendered objects hang from.
type treeNode struct {
	Kind       string          `json:"kind"`
	Namespace  string          `json:"namespace,omitempty"`
	Name       string          `json:"name"`
	Conditions []treeCondition `json:"conditions,omitempty"`
	Missing    bool            `json:"missing,omitempty"`
}

type treeCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// treeObject is one object a Rendering lists.
type treeObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	Template   string `json:"template"`
	Hash       string `json:"hash,omitempty"`
	// Ready is the object's readiness now: True, False, missing, or unknown when it could
	// not be read (Error says why).
	Ready string `json:"ready"`
	// RecordedReady is its readiness when the Rendering was last written.
	RecordedReady bool `json:"recordedReady"`
	// Reason says why an object that can be read is not ready (kstatus's message).
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
}

const (
	readyTrue    = "True"
	readyFalse   = "False"
	readyMissing = "missing"
	readyUnknown = "unknown"
)

// treeLine is one printed row and the rows indented under it.
type treeLine struct {
	kind, namespace, name string
	ready, recorded       string
	template, hash        string
	status                string
	// namespaceInName shows the namespace after the name without -o wide: Gateways and
	// HTTPRoutes may be in any namespace, rendered objects are in their owner's.
	namespaceInName bool
	children        []treeLine
}

func (t *gatewayTree) root() treeLine {
	gw := t.Gateway.line()
	class := t.GatewayClass.line()
	if t.Blueprint != nil {
		class.children = append(class.children, t.blueprintLine())
	}
	gw.children = append(append(gw.children, class), objectLines(t.Objects)...)
	for _, route := range t.HTTPRoutes {
		gw.children = append(gw.children, route.line(orHTTPRoute(route.Kind), route.HTTPRoute))
	}
	return gw
}

// blueprintLine is the blueprint's line, with the revision the Gateway runs.
func (t *gatewayTree) blueprintLine() treeLine {
	l := t.Blueprint.line()
	var revisions []string
	if t.Revision > 0 {
		revisions = append(revisions, fmt.Sprintf("Revision=%d", t.Revision))
	}
	if t.TargetRevision > t.Revision { // an older target yields to the current revision
		revisions = append(revisions, fmt.Sprintf("Target=%d", t.TargetRevision))
	}
	l.status = strings.TrimSpace(l.status + " " + strings.Join(revisions, " "))
	return l
}

func (t *routeTree) root() treeLine {
	namespace, name, _ := strings.Cut(t.HTTPRoute, "/")
	route := treeLine{kind: orHTTPRoute(t.Kind), namespace: namespace, name: name, namespaceInName: true}
	for _, parent := range t.Parents {
		route.children = append(route.children, parent.line("Gateway", parent.Gateway))
	}
	return route
}

func (n treeNode) line() treeLine {
	l := treeLine{kind: n.Kind, namespace: n.Namespace, name: n.Name, status: conditionSummary(n.Conditions), namespaceInName: true}
	if n.Missing {
		l.ready, l.status = readyMissing, ""
	}
	return l
}

// line shows r as the object "namespace/name" of kind: the route under a Gateway, or
// the Gateway under a route; either way with the route's conditions on that Gateway.
func (r routeOnGateway) line(kind, object string) treeLine {
	namespace, name, _ := strings.Cut(object, "/")
	l := treeLine{
		kind: kind, namespace: namespace, name: name, namespaceInName: true,
		status: conditionSummary(r.Conditions), children: objectLines(r.Objects),
	}
	if r.Missing {
		l.ready, l.status = readyMissing, ""
	}
	return l
}

func objectLines(objects []treeObject) []treeLine {
	lines := make([]treeLine, len(objects))
	for i, o := range objects {
		lines[i] = treeLine{
			kind: o.Kind, namespace: o.Namespace, name: o.Name,
			ready: o.Ready, recorded: fmt.Sprint(o.RecordedReady),
			template: o.Template, hash: o.Hash, status: o.Error + o.Reason,
		}
	}
	return lines
}

// conditionSummary is "Accepted=True Programmed=False/Pending": the reason only where
// the condition is not True.
func conditionSummary(conditions []treeCondition) string {
	parts := make([]string, len(conditions))
	for i, c := range conditions {
		parts[i] = c.Type + "=" + c.Status
		if c.Status != "True" && c.Reason != "" {
			parts[i] += "/" + c.Reason
		}
	}
	return strings.Join(parts, " ")
}

// printTree prints root as a table with the rows indented as a tree; wide adds the
// namespace, hash and recorded readiness columns.
func printTree(out io.Writer, root treeLine, wide bool) error {
	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	if wide {
		fmt.Fprintln(w, "NAME\tNAMESPACE\tREADY\tRECORDED\tTEMPLATE\tHASH\tSTATUS")
	} else {
		fmt.Fprintln(w, "NAME\tREADY\tTEMPLATE\tSTATUS")
	}
	printTreeLine(w, root, "", "", wide)
	if err := w.Flush(); err != nil {
		return err
	}
	// tabwriter pads the cells before an empty STATUS; the padding would end the lines.
	lines := strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n")
	for i, line := range lines {
		lines[i] = strings.TrimRight(line, " ") + "\n"
	}
	_, err := io.WriteString(out, strings.Join(lines, ""))
	return err
}

func printTreeLine(w io.Writer, l treeLine, prefix, childPrefix string, wide bool) {
	name := prefix + l.kind + "/" + l.name
	if wide {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, l.namespace, l.ready, l.recorded, l.template, l.hash, l.status)
	} else {
		if l.namespaceInName && l.namespace != "" {
			name += " (" + l.namespace + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", name, l.ready, l.template, l.status)
	}
	for i, child := range l.children {
		branch, under := "├─ ", "│  "
		if i == len(l.children)-1 {
			branch, under = "└─ ", "   "
		}
		printTreeLine(w, child, childPrefix+branch, childPrefix+under, wide)
	}
}

// orHTTPRoute is kind, or HTTPRoute when it is empty.
func orHTTPRoute(kind string) string {
	if kind == "" {
		return "HTTPRoute"
	}
	return kind
}
