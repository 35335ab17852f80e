package summary_test

import (
	"strings"
	"testing"

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/summary"
)

// healthCase is one state of one kind: what kstatus (Flux, kubectl wait) computes of it
// and what its Argo CD health check says, with a part of the message that says why.
type healthCase struct {
	name    string
	obj     *unstructured.Unstructured
	kstatus kstatus.Status
	argocd  string
	message string
}

// fluxSays is what Flux's healthCheckExprs (config/flux) make of the states of Gateway
// API's kinds, which kstatus cannot judge.
var fluxSays = map[string]string{
	"Gateway programmed":                            "Current",
	"Gateway waiting for a controller":              "InProgress",
	"Gateway edited, not judged yet":                "InProgress",
	"Gateway waiting for its objects":               "InProgress",
	"Gateway whose render failed":                   "Failed",
	"Gateway refused":                               "Failed",
	"Gateway with a listener's certificate missing": "Failed",
	"HTTPRoute accepted":                            "Current",
	"HTTPRoute not taken by any parent yet":         "Unknown", // no status to read yet: Flux waits
	"HTTPRoute edited, not judged yet":              "InProgress",
	"HTTPRoute whose render failed":                 "Failed",
	"HTTPRoute with a backend missing":              "Failed",
}

// TestToolsReadEachState: each state the controllers write, built by the functions they
// write it with, reads the same in kstatus and in the Argo CD health checks: Current and
// Healthy when in effect, InProgress and Progressing while a change or rollout is under
// way (Suspended while paused), Failed and Degraded when invalid, refused or rolled back.
// Gateways and routes carry only Gateway API's conditions, which kstatus does not read:
// it calls every one Current, and only the Argo CD checks (or Flux's healthCheckExprs,
// docs/install.md) tell their states apart.
func TestToolsReadEachState(t *testing.T) {
	var cases []healthCase
	cases = append(cases, policyCases(t)...)
	cases = append(cases, blueprintCases(t)...)
	cases = append(cases, gatewayCases(t)...)
	cases = append(cases, routeCases(t)...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := kstatus.Compute(c.obj)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != c.kstatus {
				t.Errorf("kstatus: %s (%s), want %s", res.Status, res.Message, c.kstatus)
			}
			status, message := health(t, c.obj)
			if status != c.argocd || !strings.Contains(message, c.message) {
				t.Errorf("Argo CD: %s %q, want %s with %q", status, message, c.argocd, c.message)
			}
			if want, ok := fluxSays[c.name]; ok {
				if got := fluxHealth(t, c.obj); got != want {
					t.Errorf("Flux healthCheckExprs: %s, want %s", got, want)
				}
			}
		})
	}
}

// TestRecordsAreCurrent: Renderings and revisions are records the controller writes,
// with no status; kstatus calls them Current, which they are once written.
func TestRecordsAreCurrent(t *testing.T) {
	for _, obj := range []runtime.Object{
		&gatewrightv1alpha1.Rendering{TypeMeta: typeMeta(gatewrightv1alpha1.KindRendering), ObjectMeta: metav1.ObjectMeta{Name: "gateway.web", Generation: 3}},
		&gatewrightv1alpha1.GatewayClassBlueprintRevision{TypeMeta: typeMeta(gatewrightv1alpha1.KindGatewayClassBlueprintRevision), ObjectMeta: metav1.ObjectMeta{Name: "edge-1", Generation: 1}},
	} {
		res, err := kstatus.Compute(toUnstructured(t, obj))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != kstatus.CurrentStatus {
			t.Errorf("%T: %s, want Current", obj, res.Status)
		}
	}
}

const generation = 4

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gatewrightv1alpha1.GroupVersion.String(), Kind: kind}
}

func toUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: content}
}

// ancestor is Gatewright's entry for target, judged for generation.
func ancestor(target, accepted, programmed string) gatewayv1.PolicyAncestorStatus {
	kind, name, _ := strings.Cut(target, "/")
	group, k := gatewayv1.Group(gatewayv1.GroupName), gatewayv1.Kind(kind)
	a := gatewayv1.PolicyAncestorStatus{AncestorRef: gatewayv1.ParentReference{Group: &group, Kind: &k, Name: gatewayv1.ObjectName(name)}, ControllerName: gatewrightv1alpha1.ControllerName}
	set := func(conditionType, reason string, ok bool) {
		status := metav1.ConditionFalse
		if ok {
			status = metav1.ConditionTrue
		}
		a.Conditions = append(a.Conditions, metav1.Condition{Type: conditionType, Status: status, Reason: reason, Message: conditionType + " says " + reason, ObservedGeneration: generation})
	}
	set("Accepted", accepted, accepted == "Accepted")
	set("Programmed", programmed, programmed == "Programmed" || programmed == "PartiallyProgrammed")
	return a
}

// policy is a policy of kind as the policy reconciler writes it for generation over
// ancestors, with more verdicts (a riding config's) summed up with theirs.
func policy(t *testing.T, kind string, ancestors []gatewayv1.PolicyAncestorStatus, more ...summary.Verdict) *unstructured.Unstructured {
	var status gatewrightv1alpha1.PolicyStatus
	status.Ancestors = ancestors
	summary.Set(&status.Conditions, summary.Worst(append([]summary.Verdict{summary.Policy(generation, ancestors, len(ancestors))}, more...)...), generation)
	status.ObservedGeneration = generation
	meta := metav1.ObjectMeta{Name: "p", Namespace: "tenant", Generation: generation}
	if kind == gatewrightv1alpha1.KindGatewayConfig {
		return toUnstructured(t, &gatewrightv1alpha1.GatewayConfig{TypeMeta: typeMeta(kind), ObjectMeta: meta, Status: status})
	}
	return toUnstructured(t, &gatewrightv1alpha1.GatewayClassConfig{TypeMeta: typeMeta(kind), ObjectMeta: meta, Status: status})
}

func policyCases(t *testing.T) []healthCase {
	var cases []healthCase
	for _, kind := range []string{gatewrightv1alpha1.KindGatewayConfig, gatewrightv1alpha1.KindGatewayClassConfig} {
		programmed := []gatewayv1.PolicyAncestorStatus{ancestor("Gateway/web", "Accepted", "Programmed"), ancestor("HTTPRoute/api", "Accepted", "Programmed")}
		edited := policy(t, kind, programmed)
		edited.SetGeneration(generation + 1)
		otherShard := ancestor("Gateway/far", "Accepted", "Programmed")
		otherShard.Conditions[0].ObservedGeneration, otherShard.Conditions[1].ObservedGeneration = generation-1, generation-1
		unwritten := policy(t, kind, nil)
		// As the API server defaults the status of a new object (test/api).
		unwritten.Object["status"] = map[string]any{"observedGeneration": int64(0)}
		cases = append(cases,
			healthCase{kind + " not yet written", unwritten, kstatus.InProgressStatus, "Progressing", "observe generation 4"},
			healthCase{kind + " programmed", policy(t, kind, programmed), kstatus.CurrentStatus, "Healthy", "Programmed on every ancestor (2)"},
			healthCase{kind + " edited, not judged yet", edited, kstatus.InProgressStatus, "Progressing", "observe generation 5"},
			healthCase{kind + " partly in effect and overridden", policy(t, kind, []gatewayv1.PolicyAncestorStatus{
				ancestor("Gateway/web", "Accepted", "PartiallyProgrammed"), ancestor("HTTPRoute/api", "Accepted", "Overridden"), ancestor("Gateway/mobile", "Accepted", "Programmed"),
			}), kstatus.CurrentStatus, "Healthy", "Programmed on 1 of 3 ancestor(s); Gateway/web: PartiallyProgrammed"},
			healthCase{kind + " reaching no Gateway yet", policy(t, kind, []gatewayv1.PolicyAncestorStatus{ancestor("Gateway/web", "Accepted", "Reconciling")}),
				kstatus.CurrentStatus, "Healthy", "Gateway/web: Reconciling"},
			healthCase{kind + " invalid", policy(t, kind, []gatewayv1.PolicyAncestorStatus{ancestor("Gateway/web", "Accepted", "Programmed"), ancestor("Gateway/mobile", "Invalid", "Invalid")}),
				kstatus.FailedStatus, "Degraded", "Invalid: Gateway/mobile: Invalid: Accepted says Invalid"},
			healthCase{kind + " targeting what is not there", policy(t, kind, []gatewayv1.PolicyAncestorStatus{ancestor("Gateway/gone", "TargetNotFound", "Reconciling")}),
				kstatus.FailedStatus, "Degraded", "TargetNotFound: Gateway/gone"},
			healthCase{kind + " waiting on another shard", policy(t, kind, []gatewayv1.PolicyAncestorStatus{ancestor("Gateway/web", "Accepted", "Programmed"), otherShard}),
				kstatus.InProgressStatus, "Progressing", "AncestorsPending: 1 of 2 ancestor(s) not judged for generation 4 yet: Gateway/far"},
		)
	}
	class := []gatewayv1.PolicyAncestorStatus{ancestor("GatewayClass/edge", "Accepted", "Programmed")}
	kind := gatewrightv1alpha1.KindGatewayClassConfig
	wave := &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 3, From: 2, Phase: gatewrightv1alpha1.RolloutProgressing, Wave: 1, Updated: 2}
	paused := &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 3, From: 2, Phase: gatewrightv1alpha1.RolloutPaused, Updated: 1}
	rolledBack := &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 3, From: 2, Phase: gatewrightv1alpha1.RolloutRolledBack,
		Failure: &gatewrightv1alpha1.RolloutFailure{Revision: 3, Gateways: []string{"tenant/web"}, Message: "Programmed is False"}}
	return append(cases,
		healthCase{"riding GatewayClassConfig rolled out", policy(t, kind, class, summary.Riding("edge", nil, true, false)), kstatus.CurrentStatus, "Healthy", "Programmed on every ancestor"},
		healthCase{"riding GatewayClassConfig in a rollout's wave", policy(t, kind, class, summary.Riding("edge", wave, false, true)),
			kstatus.InProgressStatus, "Progressing", "RolloutProgressing: rides the rollout of GatewayClassBlueprint edge: revision 3: wave 2 assigned"},
		healthCase{"riding GatewayClassConfig in a paused rollout", policy(t, kind, class, summary.Riding("edge", paused, false, true)),
			kstatus.InProgressStatus, "Suspended", "RolloutPaused: rides the rollout of GatewayClassBlueprint edge"},
		healthCase{"riding GatewayClassConfig rolled back", policy(t, kind, class, summary.Riding("edge", rolledBack, false, true)),
			kstatus.FailedStatus, "Degraded", "RolledBack: rides the rollout of GatewayClassBlueprint edge: revision 3 was rolled back to 2: wave 1 failed its gate on tenant/web: Programmed is False"},
		healthCase{"riding GatewayClassConfig unchanged by a rollout of its blueprint", policy(t, kind, class, summary.Riding("edge", wave, true, true)),
			kstatus.CurrentStatus, "Healthy", "Programmed on every ancestor"},
		healthCase{"riding GatewayClassConfig waiting for a revision", policy(t, kind, class, summary.Riding("edge", nil, false, false)),
			kstatus.InProgressStatus, "Progressing", "RevisionPending: waiting for GatewayClassBlueprint edge to make a revision"},
	)
}

// blueprint is a blueprint whose reconciler wrote status for generation.
func blueprint(t *testing.T, status gatewrightv1alpha1.GatewayClassBlueprintStatus) *unstructured.Unstructured {
	if len(status.Conditions) == 0 {
		status.Conditions = []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: generation}}
	}
	summary.Set(&status.Conditions, summary.Blueprint(&status), generation)
	status.ObservedGeneration = generation
	return toUnstructured(t, &gatewrightv1alpha1.GatewayClassBlueprint{TypeMeta: typeMeta(gatewrightv1alpha1.KindGatewayClassBlueprint),
		ObjectMeta: metav1.ObjectMeta{Name: "edge", Generation: generation}, Status: status})
}

func blueprintCases(t *testing.T) []healthCase {
	complete := &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 2, From: 1, Phase: gatewrightv1alpha1.RolloutComplete}
	edited := blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{CurrentRevision: 2, TargetRevision: 2, Rollout: complete})
	edited.SetGeneration(generation + 1)
	return []healthCase{
		{"GatewayClassBlueprint rolled out", blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{CurrentRevision: 2, TargetRevision: 2, Rollout: complete}),
			kstatus.CurrentStatus, "Healthy", "RolledOut: revision 2 runs on every Gateway"},
		{"GatewayClassBlueprint with Gateways failing", blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{CurrentRevision: 2, TargetRevision: 2, Rollout: complete, FailingGateways: 3}),
			kstatus.CurrentStatus, "Healthy", "3 Gateway(s) fail to render or apply"},
		{"GatewayClassBlueprint edited, not judged yet", edited, kstatus.InProgressStatus, "Progressing", "observe generation 5"},
		{"GatewayClassBlueprint not accepted", blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{Conditions: []metav1.Condition{
			{Type: "Accepted", Status: metav1.ConditionFalse, Reason: gatewrightv1alpha1.ReasonInvalidTemplates, Message: "template config: unexpected EOF", ObservedGeneration: generation}}}),
			kstatus.FailedStatus, "Degraded", "InvalidTemplates: template config: unexpected EOF"},
		{"GatewayClassBlueprint in a rollout's wave", blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{CurrentRevision: 2, TargetRevision: 3,
			Rollout: &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 3, From: 2, Phase: gatewrightv1alpha1.RolloutProgressing, Updated: 1}}),
			kstatus.InProgressStatus, "Progressing", "RolloutProgressing: revision 3: wave 1 assigned, 1 Gateway(s) updated"},
		{"GatewayClassBlueprint with a paused rollout", blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{CurrentRevision: 2, TargetRevision: 3,
			Rollout: &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 3, From: 2, Phase: gatewrightv1alpha1.RolloutPaused}}),
			kstatus.InProgressStatus, "Suspended", "RolloutPaused: revision 3: spec.rollout.paused holds the rollout"},
		{"GatewayClassBlueprint rolled back", blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{CurrentRevision: 2, TargetRevision: 3,
			Rollout: &gatewrightv1alpha1.BlueprintRolloutStatus{Revision: 3, From: 2, Phase: gatewrightv1alpha1.RolloutRolledBack,
				Failure: &gatewrightv1alpha1.RolloutFailure{Revision: 3, Gateways: []string{"tenant/web"}, Message: "no Programmed"}}}),
			kstatus.FailedStatus, "Degraded", "RolledBack: revision 3 was rolled back to 2: wave 1 failed its gate on tenant/web: no Programmed"},
		{"GatewayClassBlueprint with an unreadable rollout annotation", blueprint(t, gatewrightv1alpha1.GatewayClassBlueprintStatus{CurrentRevision: 2, TargetRevision: 2, Conditions: []metav1.Condition{
			{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", ObservedGeneration: generation},
			{Type: gatewrightv1alpha1.ConditionRolloutHeld, Status: metav1.ConditionTrue, Reason: gatewrightv1alpha1.ReasonUnreadableAnnotation, Message: "promote says two", ObservedGeneration: generation}}}),
			kstatus.FailedStatus, "Degraded", "UnreadableAnnotation: promote says two"},
	}
}

// condition is a Gateway API condition of generation (observedGeneration), True when
// status is.
func condition(conditionType string, status bool, reason string, observed int64) metav1.Condition {
	c := metav1.Condition{Type: conditionType, Status: metav1.ConditionFalse, Reason: reason, Message: conditionType + " says " + reason, ObservedGeneration: observed}
	if status {
		c.Status = metav1.ConditionTrue
	}
	return c
}

func gateway(t *testing.T, conditions []metav1.Condition, listener ...metav1.Condition) *unstructured.Unstructured {
	gw := &gatewayv1.Gateway{TypeMeta: metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "Gateway"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "tenant", Generation: generation}}
	gw.Status.Conditions = conditions
	gw.Status.Listeners = []gatewayv1.ListenerStatus{{Name: "https", Conditions: append([]metav1.Condition{
		condition("Accepted", true, "Accepted", generation), condition("Programmed", true, "Programmed", generation)}, listener...)}}
	return toUnstructured(t, gw)
}

func gatewayCases(t *testing.T) []healthCase {
	accepted := condition("Accepted", true, "Accepted", generation)
	waiting := metav1.Condition{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending", Message: "Waiting for controller"}
	return []healthCase{
		{"Gateway programmed", gateway(t, []metav1.Condition{accepted, condition("Programmed", true, "Programmed", generation)}), kstatus.CurrentStatus, "Healthy", "Programmed True, Programmed"},
		{"Gateway waiting for a controller", gateway(t, []metav1.Condition{waiting}), kstatus.CurrentStatus, "Progressing", "Accepted Unknown, Pending"},
		{"Gateway edited, not judged yet", gateway(t, []metav1.Condition{condition("Accepted", true, "Accepted", generation-1), condition("Programmed", true, "Programmed", generation-1)}),
			kstatus.CurrentStatus, "Progressing", "waiting for a controller"},
		{"Gateway waiting for its objects", gateway(t, []metav1.Condition{accepted, condition("Programmed", false, "Pending", generation)}), kstatus.CurrentStatus, "Progressing", "Programmed False, Pending"},
		{"Gateway whose render failed", gateway(t, []metav1.Condition{accepted, condition("Programmed", false, "Invalid", generation)}), kstatus.CurrentStatus, "Degraded", "Programmed False, Invalid"},
		{"Gateway refused", gateway(t, []metav1.Condition{condition("Accepted", false, "InvalidParameters", generation), condition("Programmed", false, "Invalid", generation)}),
			kstatus.CurrentStatus, "Degraded", "Accepted False, InvalidParameters"},
		{"Gateway with a listener's certificate missing", gateway(t, []metav1.Condition{accepted, condition("Programmed", true, "Programmed", generation)}, condition("ResolvedRefs", false, "InvalidCertificateRef", generation)),
			kstatus.CurrentStatus, "Degraded", "listener https: ResolvedRefs False, InvalidCertificateRef"},
	}
}

func route(t *testing.T, parents ...[]metav1.Condition) *unstructured.Unstructured {
	r := &gatewayv1.HTTPRoute{TypeMeta: metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "HTTPRoute"},
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "tenant", Generation: generation}}
	for _, conditions := range parents {
		r.Status.Parents = append(r.Status.Parents, gatewayv1.RouteParentStatus{ParentRef: gatewayv1.ParentReference{Name: "web"},
			ControllerName: gatewrightv1alpha1.ControllerName, Conditions: conditions})
	}
	return toUnstructured(t, r)
}

func routeCases(t *testing.T) []healthCase {
	accepted, resolved := condition("Accepted", true, "Accepted", generation), condition("ResolvedRefs", true, "ResolvedRefs", generation)
	return []healthCase{
		{"HTTPRoute accepted", route(t, []metav1.Condition{accepted, resolved}), kstatus.CurrentStatus, "Healthy", "accepted by 1 parent(s)"},
		{"HTTPRoute not taken by any parent yet", route(t), kstatus.CurrentStatus, "Progressing", "waiting for a Gateway's controller"},
		{"HTTPRoute edited, not judged yet", route(t, []metav1.Condition{condition("Accepted", true, "Accepted", generation-1), resolved}),
			kstatus.CurrentStatus, "Progressing", "parent tenant/web: waiting for its controller to judge generation 4"},
		{"HTTPRoute whose render failed", route(t, []metav1.Condition{condition("Accepted", false, "UnsupportedValue", generation), resolved}),
			kstatus.CurrentStatus, "Degraded", "parent tenant/web: Accepted False, UnsupportedValue"},
		{"HTTPRoute with a backend missing", route(t, []metav1.Condition{accepted, condition("ResolvedRefs", false, "BackendNotFound", generation)}),
			kstatus.CurrentStatus, "Degraded", "ResolvedRefs False, BackendNotFound"},
	}
}
