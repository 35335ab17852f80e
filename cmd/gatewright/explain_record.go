package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/values"
)

// notRecorded stands for a value the record left out to stay within its bound.
const notRecorded = "<not recorded>"

// recordSource says which Rendering an explanation was read from, for a caller who may
// not read the chain: the owner of a route on another tenant's Gateway, for instance.
type recordSource struct {
	Rendering  string      `json:"rendering"`
	RecordedAt metav1.Time `json:"recordedAt"`
	// Because is what the caller could not read.
	Because string `json:"because"`
	Cut     string `json:"cut,omitempty"`
}

// recordedExplanation is an explanation read from a Rendering, as -o yaml|json prints it.
type recordedExplanation struct {
	*explanation
	RecordedIn *recordSource `json:"recordedIn"`
}

// recordedGateway explains a Gateway from its Rendering, after forbidden kept the
// chain from being read.
func (r liveReader) recordedGateway(ctx context.Context, namespace, name string, forbidden error) (*explanation, *recordSource, error) {
	var gw gatewayv1.Gateway
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &gw); err != nil {
		return nil, nil, forbidden
	}
	rec, err := apply.New(r.client, r.client).LoadRecord(ctx, apply.GatewayOwner(&gw))
	if err != nil || rec.Values == nil {
		return nil, nil, noRecord(forbidden, "Gateway "+namespace+"/"+name, err)
	}
	exp := explanationOfRecord(namespace+"/"+name, "", rec.Values)
	exp.Revision = rec.Revision
	return exp, newRecordSource(namespace, rec, forbidden), nil
}

// recordedHTTPRoute explains a route from the Rendering of the route on its parent
// Gateway: the one parent names, else the only one recorded.
func (r liveReader) recordedHTTPRoute(ctx context.Context, namespace, name, parent string, forbidden error) (*explanation, *recordSource, error) {
	var route gatewayv1.HTTPRoute
	if err := r.get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &route); err != nil {
		return nil, nil, forbidden
	}
	about := "HTTPRoute " + namespace + "/" + name
	records, err := apply.New(r.client, r.client).LoadRouteRecords(ctx, &route)
	if err != nil {
		return nil, nil, noRecord(forbidden, about, err)
	}
	var gateways []string
	for key, rec := range records {
		if rec.Values != nil && (parent == "" || key == parentKey(parent, namespace).String()) {
			gateways = append(gateways, key)
		}
	}
	sort.Strings(gateways)
	switch {
	case len(gateways) == 0:
		// A route has values of its own, and so a record of them, only where its Gateway's
		// blueprint renders something for routes.
		return nil, nil, fmt.Errorf("%w; and no Rendering records the values of %s: a route has values of its own only when its Gateway's blueprint has an httpRouteTemplate (explain its Gateway otherwise)", forbidden, about)
	case len(gateways) > 1:
		return nil, nil, fmt.Errorf("%w; the Renderings of %s record its values on several Gateways (%s): choose one with --gateway", forbidden, about, strings.Join(gateways, ", "))
	}
	rec := records[gateways[0]]
	exp := explanationOfRecord(gateways[0], namespace+"/"+name, rec.Values)
	exp.Revision = rec.Revision
	return exp, newRecordSource(namespace, rec, forbidden), nil
}

func noRecord(forbidden error, about string, err error) error {
	if err != nil {
		return fmt.Errorf("%w; and the values recorded for %s cannot be read either: %w", forbidden, about, err)
	}
	return fmt.Errorf("%w; and no Rendering records the values of %s yet", forbidden, about)
}

func newRecordSource(namespace string, rec *apply.Record, forbidden error) *recordSource {
	return &recordSource{Rendering: namespace + "/" + rec.ValuesRendering(), RecordedAt: rec.Values.RecordedAt, Because: forbidden.Error(), Cut: rec.Values.Cut}
}

// explanationOfRecord is the explanation a record holds: the values' provenance and the
// policies' states, without what the policies lost and why, which are not recorded.
func explanationOfRecord(gateway, route string, v *gatewrightv1alpha1.RecordedValues) *explanation {
	exp := &explanation{Gateway: gateway, HTTPRoute: route, GatewayClass: v.GatewayClass, Blueprint: v.Blueprint,
		Provenance: []values.Leaf{}, Policies: []policyExplanation{}}
	for _, l := range v.Provenance {
		leaf := values.Leaf{Path: l.Path, Unset: l.Unset, Origin: originOfRecord(l.RecordedOrigin)}
		if l.DroppedBy != nil {
			by := originOfRecord(*l.DroppedBy)
			leaf.DroppedBy = &by
		}
		switch {
		case l.Private:
			leaf.Value = gatewrightv1alpha1.PrivateValue
		case l.Unset:
		case l.Value == "" || json.Unmarshal([]byte(l.Value), &leaf.Value) != nil:
			leaf.Value = notRecorded
		}
		exp.Provenance = append(exp.Provenance, leaf)
	}
	for _, p := range v.Policies {
		report := values.PolicyReport{Source: sourceOfRecord(p.Source)}
		for _, l := range p.Levels {
			report.Levels = append(report.Levels, values.Level(l))
		}
		exp.Policies = append(exp.Policies, policyExplanation{PolicyReport: report, State: values.State(p.State)})
	}
	return exp
}

func originOfRecord(o gatewrightv1alpha1.RecordedOrigin) values.Origin {
	return values.Origin{Source: sourceOfRecord(o.Source), As: values.Half(o.As), Level: values.Level(o.Level), Strategy: o.Strategy}
}

func sourceOfRecord(s gatewrightv1alpha1.PolicySource) values.Source {
	return values.Source{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
}

// print says where the explanation comes from, then prints it.
func (s *recordSource) print(out io.Writer, exp *explanation, format string) error {
	if format != "" {
		return printObject(out, recordedExplanation{explanation: exp, RecordedIn: s}, format)
	}
	fmt.Fprintf(out, "From Rendering %s, recorded at %s by the controller (%s)\n", s.Rendering, s.RecordedAt.UTC().Format(time.RFC3339), s.Because)
	fmt.Fprintln(out, "The record keeps each policy's state, not which of its values lost to what.")
	if s.Cut != "" {
		fmt.Fprintf(out, "The record is cut: %s\n", s.Cut)
	}
	return exp.print(out, "")
}
