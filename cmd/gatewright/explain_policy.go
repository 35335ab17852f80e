package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	statusconditions "github.com/gatewright/gatewright/internal/conditions"
	"github.com/gatewright/gatewright/internal/render"
	"github.com/gatewright/gatewright/internal/snapshot"
	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// policyKinds are the names explain takes for the policy kinds.
var policyKinds = map[string]string{
	"gatewayconfig": gatewrightv1alpha1.KindGatewayConfig, "gatewayconfigs": gatewrightv1alpha1.KindGatewayConfig, "gwc": gatewrightv1alpha1.KindGatewayConfig,
	"gatewayclassconfig": gatewrightv1alpha1.KindGatewayClassConfig, "gatewayclassconfigs": gatewrightv1alpha1.KindGatewayClassConfig, "gcc": gatewrightv1alpha1.KindGatewayClassConfig,
}

// placement is where a policy lands: what explain gatewayconfig|gatewayclassconfig prints.
type placement struct {
	Policy values.Source `json:"policy"`
	// Values are the leaves the policy sets.
	Values []values.SetValue `json:"values"`
	// Invalid is why the policy cannot be used at all: no values are computed with it.
	Invalid string            `json:"invalid,omitempty"`
	Targets []targetPlacement `json:"targets"`
	// Partial tells that the placement was computed without what Unread lists, which it
	// depends on (explain --partial): contexts may be missing, and the verdicts are
	// judged over those shown only.
	Partial bool     `json:"partial,omitempty"`
	Unread  []string `json:"unread,omitempty"`
}

// targetPlacement is where one target of the policy leads.
type targetPlacement struct {
	// Target is Kind/Name, as the policy's status names it.
	Target string `json:"target"`
	// Accepted is the condition the controller writes for this target when the target is
	// not accepted (it does not exist, or may not be targeted); omitted otherwise.
	Accepted *enforcedCondition `json:"accepted,omitempty"`
	// Enforced is the condition the controller writes for this target.
	Enforced enforcedCondition `json:"enforced"`
	// Contexts counts the Gateways, and routes on Gateways, the target reaches.
	Contexts int `json:"contexts"`
	// Outcomes group the contexts where every value of the policy fared alike.
	Outcomes []outcome `json:"outcomes"`
}

type enforcedCondition struct {
	Status  metav1.ConditionStatus `json:"status"`
	Reason  string                 `json:"reason"`
	Message string                 `json:"message"`
}

// outcome is a group of contexts where the policy's values fared alike.
type outcome struct {
	Count    int      `json:"count"`
	Contexts []string `json:"contexts"`
	// Revisions are the blueprint revisions the contexts' values are computed with,
	// those their Gateways run; none for the live spec of a blueprint without them.
	Revisions []int64 `json:"revisions,omitempty"`
	contextFates
}

// placer finds where policies land: the contexts through reach, their values through
// contextValues, each chain computed once for every target of the policy, with the
// blueprint revision each Gateway runs (revisions).
type placer struct {
	reach         snapshot.Reach
	contextValues *snapshot.ContextValues
	revisions     *runningRevisions
	// reached collects the Gateways of the contexts reached, when not nil.
	reached *[]*gatewayv1.Gateway
}

// place explains the policy source, of targets and blocks.
func (p placer) place(ctx context.Context, source values.Source, targets []gatewayv1.LocalPolicyTargetReference, blocks *gatewrightv1alpha1.DefaultsAndOverrides) (*placement, error) {
	pl := &placement{Policy: source, Values: []values.SetValue{}, Targets: []targetPlacement{}}
	sets, err := values.ValuesOf(source, blocks)
	if err != nil {
		// As the controller: the policy is Invalid on every target, nothing is computed.
		pl.Invalid = err.Error()
		for _, target := range targets {
			pl.Targets = append(pl.Targets, targetPlacement{Target: targetName(target), Outcomes: []outcome{},
				Enforced: enforcedCondition{Status: metav1.ConditionFalse, Reason: string(gatewayv1.PolicyReasonInvalid), Message: err.Error()}})
		}
		return pl, nil
	}
	if sets != nil {
		pl.Values = sets
	}
	for _, target := range targets {
		tp, err := p.placeTarget(ctx, source, sets, target)
		if err != nil {
			return nil, fmt.Errorf("%s: target %s: %w", source, targetName(target), err)
		}
		pl.Targets = append(pl.Targets, tp)
	}
	return pl, nil
}

// placeTarget explains one target: its contexts grouped by outcome, and the verdict
// over them. The fates are worked out once per computed chain, which many contexts share.
func (p placer) placeTarget(ctx context.Context, source values.Source, sets []values.SetValue, target gatewayv1.LocalPolicyTargetReference) (targetPlacement, error) {
	tp := targetPlacement{Target: targetName(target), Outcomes: []outcome{}}
	// As the controller: a target that is not accepted has nothing enforced. A read the
	// caller may not make leaves the check to the contexts, as before.
	if accepted, err := snapshot.TargetAccepted(ctx, p.reach.Reader, source.Namespace, target); err == nil && !accepted.OK {
		tp.Accepted = &enforcedCondition{Status: metav1.ConditionFalse, Reason: accepted.Reason, Message: accepted.Message}
		tp.Enforced = enforcedCondition{Status: metav1.ConditionFalse, Reason: translate.NotAccepted.Reason, Message: translate.NotAccepted.Message}
		return tp, nil
	}
	contexts, err := p.reach.ContextsReached(ctx, source.Namespace, target)
	if err != nil {
		return tp, err
	}
	tp.Contexts = len(contexts)
	for _, c := range contexts {
		if p.reached != nil {
			*p.reached = append(*p.reached, c.Gateway)
		}
	}
	judge := translate.NewEnforcement(source)
	groups := outcomeGroups{source: source, sets: sets, list: []outcome{}, byFates: map[string]int{}, byResult: map[*translate.Result]int{}}
	for _, c := range contexts {
		res, err := p.contextValues.Of(ctx, c)
		if res != nil {
			judge.Add(c.String(), res)
		}
		groups.add(c.String(), res, err, p.revisions.of(c.Gateway))
	}
	tp.Outcomes = groups.list
	verdict := judge.Verdict()
	tp.Enforced = enforcedCondition{Status: metav1.ConditionFalse, Reason: verdict.Reason, Message: statusconditions.Message(verdict.Message)}
	if verdict.OK {
		tp.Enforced.Status = metav1.ConditionTrue
	}
	return tp, nil
}

// outcomeGroups groups contexts by what became of the policy's values there. The fates
// are worked out once per computed chain, which many contexts share.
type outcomeGroups struct {
	source   values.Source
	sets     []values.SetValue
	list     []outcome
	byFates  map[string]int // by the fates' JSON
	byResult map[*translate.Result]int
}

// add puts the context named name, whose values are res, computed with revision, or
// not computed for err, in its group.
func (g *outcomeGroups) add(name string, res *translate.Result, err error, revision int64) {
	group, done := g.byResult[res]
	if !done {
		fates := contextFates{}
		if err != nil {
			fates.NotComputed = err.Error()
		} else {
			fates = fatesOf(g.source, g.sets, res)
		}
		key, _ := json.Marshal(fates) // plain data always encodes
		if group, done = g.byFates[string(key)]; !done {
			group = len(g.list)
			g.byFates[string(key)] = group
			g.list = append(g.list, outcome{Contexts: []string{}, contextFates: fates})
		}
		if res != nil {
			g.byResult[res] = group
		}
	}
	g.list[group].Count++
	g.list[group].Contexts = append(g.list[group].Contexts, name)
	if at, found := slices.BinarySearch(g.list[group].Revisions, revision); revision > 0 && !found {
		g.list[group].Revisions = slices.Insert(g.list[group].Revisions, at, revision)
	}
}

func targetName(target gatewayv1.LocalPolicyTargetReference) string {
	return string(target.Kind) + "/" + string(target.Name)
}

// readPolicy reads the policy of kind namespace/name: its source, targets and blocks.
func readPolicy(ctx context.Context, r client.Reader, kind, namespace, name string) (values.Source, []gatewayv1.LocalPolicyTargetReference, *gatewrightv1alpha1.DefaultsAndOverrides, error) {
	source := values.Source{Kind: kind, Namespace: namespace, Name: name}
	key := client.ObjectKey{Namespace: namespace, Name: name}
	if kind == gatewrightv1alpha1.KindGatewayClassConfig {
		var p gatewrightv1alpha1.GatewayClassConfig
		if err := r.Get(ctx, key, &p); err != nil {
			return source, nil, nil, fmt.Errorf("reading %s: %w", source, err)
		}
		return source, p.Spec.TargetRefs, &p.Spec.DefaultsAndOverrides, nil
	}
	var p gatewrightv1alpha1.GatewayConfig
	if err := r.Get(ctx, key, &p); err != nil {
		return source, nil, nil, fmt.Errorf("reading %s: %w", source, err)
	}
	return source, p.Spec.TargetRefs, &p.Spec.DefaultsAndOverrides, nil
}

// runExplainPolicy explains where the policy of kind namespace/name lands, reading the
// cluster with the caller's rights; what they do not reach is said on errOut.
func runExplainPolicy(ctx context.Context, out, errOut io.Writer, k8s client.Client, opts explainOptions, kind, namespace, name string) error {
	source, targets, blocks, err := readPolicy(ctx, k8s, kind, namespace, name)
	if err != nil {
		return err
	}
	denied := &deniedReads{}
	revisions := &runningRevisions{client: k8s, denied: denied}
	p := placer{
		reach: snapshot.Reach{Reader: rightsReader{client: k8s, home: namespace, lenient: true, denied: denied}, ControllerNamespace: opts.controllerNamespace},
		contextValues: &snapshot.ContextValues{Reader: rightsReader{client: k8s, denied: denied},
			ControllerNamespace: opts.controllerNamespace, Blueprints: &render.Cache{}, Running: revisions.running},
		revisions: revisions,
		reached:   &[]*gatewayv1.Gateway{},
	}
	pl, err := p.place(ctx, source, targets, blocks)
	needed := denied.needed(*p.reached)
	if err == nil && len(needed) > 0 && !opts.partial {
		return &unreadError{reads: trimCannotRead(needed)}
	}
	denied.print(errOut)
	if err != nil {
		return err
	}
	pl.Partial, pl.Unread = len(needed) > 0, trimCannotRead(needed)
	warned := printWarnings(errOut, source.String(), pl.failedClosedWarnings())
	if err := pl.print(out, opts.output); err != nil {
		return err
	}
	if pl.Partial {
		return &exitError{code: exitUnread, err: errors.New("the explanation is partial: what could not be read is named in it"), silent: true}
	}
	return strictError(opts.strict, warned)
}

// trimCannotRead is lines without their leading "cannot read ".
func trimCannotRead(lines []string) []string {
	out := make([]string, len(lines))
	for i, line := range lines {
		out[i] = strings.TrimPrefix(line, "cannot read ")
	}
	return out
}
