package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// RolloutStrategy says how a new revision reaches a class's Gateways.
// +kubebuilder:validation:Enum=Waves;AllAtOnce
type RolloutStrategy string

const (
	// RolloutWaves assigns the revision wave by wave, each held until healthy.
	RolloutWaves RolloutStrategy = "Waves"
	// RolloutAllAtOnce assigns the revision to every Gateway at once.
	RolloutAllAtOnce RolloutStrategy = "AllAtOnce"
)

// Annotations a provider sets on a GatewayClassBlueprint (gatewright rollout promote and
// abort do) to act on the rollout of the revision they name; the controller acts once,
// when the revision is the one rolling out, and ignores them otherwise.
const (
	// AnnotationRolloutPromote assigns the revision to every remaining Gateway at once.
	AnnotationRolloutPromote = "gatewright.dev/rollout-promote"
	// AnnotationRolloutAbort sends the Gateways that run the revision back to the one
	// the rollout started from, as a failed gate does.
	AnnotationRolloutAbort = "gatewright.dev/rollout-abort"
	// AnnotationRolloutForcePromote, naming the same revision as AnnotationRolloutPromote,
	// lets the promote take a revision whose rollout was rolled back (gatewright rollout
	// promote --force): every Gateway gets the revision that failed its gate, at once.
	// Without it such a promote is ignored.
	AnnotationRolloutForcePromote = "gatewright.dev/rollout-force-promote"
)

// MaxRolloutWaves bounds spec.rollout.waves.
const MaxRolloutWaves = 10

// MaxRolloutFailureGateways bounds the Gateways a rollout failure names; the rest are counted.
const MaxRolloutFailureGateways = 16

// MaxRolloutFailureMessage bounds a rollout failure's message, in bytes.
const MaxRolloutFailureMessage = 1024

// MaxRolloutExcusedGateways bounds the excused Gateways a rollout's status names; the
// rest are counted.
const MaxRolloutExcusedGateways = 5

// MaxRolloutExcusedReason bounds why a Gateway is excused, in bytes.
const MaxRolloutExcusedReason = 512

// BlueprintRollout says how a new revision of the blueprint reaches the Gateways of its
// classes. Changing it makes no new revision.
type BlueprintRollout struct {
	// Strategy is Waves (the default: wave by wave, each held until every Gateway in it
	// is healthy for soakSeconds) or AllAtOnce (every Gateway at once, complete when all
	// are healthy). Either way a gate that does not pass within gateDeadlineSeconds rolls
	// its Gateways back to the previous revision and stops the rollout.
	// +optional
	// +kubebuilder:default=Waves
	Strategy RolloutStrategy `json:"strategy,omitempty"`

	// Waves are the cumulative sizes of the waves, each a count of Gateways ("1") or a
	// percentage of them, rounded up ("10%"). Counts ascend, percentages ascend and the
	// last is "100%"; a wave that would add no Gateway is skipped.
	// +optional
	// +kubebuilder:default={"1","10%","50%","100%"}
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=6
	// +kubebuilder:validation:items:Pattern=`^([1-9][0-9]{0,4}|([1-9][0-9]?|100)%)$`
	// +kubebuilder:validation:XValidation:rule="self[size(self) - 1] == '100%'",message="the last wave must be 100%"
	// +kubebuilder:validation:XValidation:rule="self.filter(w, w.endsWith('%')).map(w, int(w.replace('%', ''))).isSorted()",message="percentages must ascend"
	// +kubebuilder:validation:XValidation:rule="self.filter(w, !w.endsWith('%')).map(w, int(w)).isSorted()",message="counts must ascend"
	Waves []string `json:"waves,omitempty"`

	// SoakSeconds is how long every Gateway of a wave must stay healthy before the next
	// wave starts: Accepted and Programmed, its listeners Accepted, Programmed and
	// ResolvedRefs, the routes of its own namespace attached to it Accepted and
	// ResolvedRefs, its objects ready. It counts from the latest of the wave's start,
	// each Gateway's first render of the revision and the last turn to True of each of
	// those conditions (their lastTransitionTime), all recorded on the objects
	// themselves, so a controller that restarts counts the same soak.
	// +optional
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	SoakSeconds int32 `json:"soakSeconds,omitempty"`

	// GateDeadlineSeconds is how long, from its start, a wave has to pass its soak; past
	// it the wave's Gateways are rolled back to the previous revision.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	GateDeadlineSeconds int32 `json:"gateDeadlineSeconds,omitempty"`

	// Order says which Gateways go first; without it, by namespace/name.
	// +optional
	Order *RolloutOrder `json:"order,omitempty"`

	// Paused holds the rollout: no new wave starts and no wave is rolled back. Resuming
	// restarts the current wave's gate.
	// +optional
	Paused bool `json:"paused,omitempty"`
}

// RolloutOrder orders a class's Gateways for the waves.
type RolloutOrder struct {
	// NamespaceLabel is a label key: Gateways whose namespace has a smaller value of it
	// go first (integers by value, before other values, which compare as text; a
	// namespace without the label goes last), then by namespace/name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	NamespaceLabel string `json:"namespaceLabel"`
}

// RolloutPhase is where a rollout stands.
// +kubebuilder:validation:Enum=Progressing;Paused;Complete;RolledBack
type RolloutPhase string

const (
	// RolloutProgressing: a wave is assigned and has not yet been healthy for its soak.
	RolloutProgressing RolloutPhase = "Progressing"
	// RolloutPaused: spec.rollout.paused holds the rollout.
	RolloutPaused RolloutPhase = "Paused"
	// RolloutComplete: the revision passed every wave and is the current revision.
	RolloutComplete RolloutPhase = "Complete"
	// RolloutRolledBack: a wave failed its gate and went back to the previous revision.
	RolloutRolledBack RolloutPhase = "RolledBack"
)

// BlueprintRolloutStatus is the state of the newest rollout. It lives only in the
// blueprint's status (and the soak in the status of the wave's Gateways), so a
// controller that restarts, or a new leader, resumes the same wave and gate. It is
// written once per wave.
type BlueprintRolloutStatus struct {
	// Revision is the revision being rolled out.
	Revision int64 `json:"revision"`
	// From is the revision the Gateways ran before, to which a failed wave goes back.
	// +optional
	From int64 `json:"from,omitempty"`
	// Phase is Progressing, Paused, Complete or RolledBack.
	Phase RolloutPhase `json:"phase"`
	// Wave is the index, in spec.rollout.waves, of the wave assigned last.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Wave int32 `json:"wave,omitempty"`
	// WaveStarted is when that wave was assigned; its gate deadline counts from here, and
	// Gateways created later wait for the next wave.
	// +optional
	WaveStarted *metav1.Time `json:"waveStarted,omitempty"`
	// Updated counts the Gateways assigned the revision so far.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Updated int32 `json:"updated,omitempty"`
	// WaveEnd is the last Gateway, in rollout order, that the wave took when it started.
	// A controller restarted before every assignment of the wave was written takes the
	// Gateways up to it that lack one; a Gateway of the wave deleted since is not
	// replaced by the next in order, whose first render would restart the soak.
	// +optional
	WaveEnd *RolloutPosition `json:"waveEnd,omitempty"`
	// Excused are the Gateways that have the revision but do not gate the wave: broken
	// before they took it, or failing or changed for a reason in their tenant's control
	// (their Gateway, GatewayConfigs or routes changed, their route's backends or
	// certificates went missing). They keep the revision; only a failure the revision
	// causes rolls it back.
	// +optional
	Excused *RolloutExcused `json:"excused,omitempty"`
	// Failure says why the rollout was rolled back.
	// +optional
	Failure *RolloutFailure `json:"failure,omitempty"`
}

// RolloutFailure names the wave that failed its gate and why.
type RolloutFailure struct {
	// Revision is the revision that failed.
	Revision int64 `json:"revision"`
	// Wave is the index of the wave that failed.
	// +kubebuilder:validation:Minimum=0
	Wave int32 `json:"wave"`
	// Gateways are the first of the Gateways gating the wave (namespace/name) that were
	// not healthy, or, when all were, those that turned healthy too late for the soak.
	// An excused Gateway is never named: its failure is not the revision's.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=317
	Gateways []string `json:"gateways,omitempty"`
	// MoreGateways counts the unhealthy Gateways that Gateways leaves out.
	// +optional
	// +kubebuilder:validation:Minimum=0
	MoreGateways int32 `json:"moreGateways,omitempty"`
	// Message says what the first of them was missing: the render's error when the
	// revision does not render for it.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
}

// RolloutPosition is a Gateway's place in the rollout order.
type RolloutPosition struct {
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// OrderValue is the value of spec.rollout.order.namespaceLabel on its namespace when
	// the wave started; absent when the namespace had none (or the order has no label).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	OrderValue *string `json:"orderValue,omitempty"`
}

// RolloutExcused names the first Gateways that do not gate the wave and why, and counts
// the rest.
type RolloutExcused struct {
	// Gateways are the first of them, in rollout order.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=5
	Gateways []ExcusedGateway `json:"gateways,omitempty"`
	// More counts those Gateways leaves out.
	// +optional
	// +kubebuilder:validation:Minimum=0
	More int32 `json:"more,omitempty"`
}

// ExcusedGateway is one Gateway that does not gate the wave, and why.
type ExcusedGateway struct {
	// Gateway is its namespace/name.
	// +kubebuilder:validation:MaxLength=317
	Gateway string `json:"gateway"`
	// Reason says why it does not gate.
	// +kubebuilder:validation:MaxLength=512
	Reason string `json:"reason"`
}
