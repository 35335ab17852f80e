package rollout

import (
	"cmp"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// Status is the rollout's state as the blueprint's status records it.
type Status = gatewrightv1alpha1.BlueprintRolloutStatus

// Observation is what the controller sees when it steps the rollout.
type Observation struct {
	// Stable is the blueprint's currentRevision, Target its targetRevision (the newest).
	Stable, Target int64
	// Members are the Gateways of the blueprint's classes.
	Members []Member
	Now     time.Time
}

// Assignment says: set the targetRevision of these Gateways' Renderings to Revision, and
// their gatesRollout to Gates.
type Assignment struct {
	Revision int64
	Gates    bool
	Gateways []types.NamespacedName
}

// assigned is what a step assigns one Gateway.
type assigned struct {
	revision int64
	gates    bool
}

// Result is the next state and what to do to reach it. The caller writes Status first
// (with optimistic concurrency: it is the commit point), then Assignments; a controller
// killed in between steps the written status again and gets the same assignments.
type Result struct {
	Status      *Status
	Assignments []Assignment
	// Stable is the blueprint's currentRevision from now on: Target once complete.
	Stable int64
	// RequeueAfter is when the gate's soak or deadline falls due; 0 for nothing pending.
	RequeueAfter time.Duration
}

// Step advances the rollout by one decision, as a pure function of the recorded status
// and the observation: stepping the same status and observation again gives the same
// result, so a restarted controller or a new leader resumes the same wave and the same
// gate (the wave's start is in the status, its soak in what its Gateways record),
// neither skipping nor repeating it.
func Step(recorded *Status, cfg Config, obs Observation) Result {
	if obs.Target == 0 {
		return Result{Status: recorded, Stable: obs.Stable}
	}
	if recorded == nil || recorded.Revision != obs.Target {
		return start(cfg, obs, settled(recorded, obs.Stable))
	}
	s := &stepper{st: recorded.DeepCopy(), cfg: cfg, obs: obs, pending: map[types.NamespacedName]assigned{}, stable: obs.Stable}
	switch {
	case s.st.Phase == gatewrightv1alpha1.RolloutComplete:
		return Result{Status: s.st, Stable: s.st.Revision}
	case s.st.Phase == gatewrightv1alpha1.RolloutRolledBack:
		// A promote of a revision rolled back is not honoured: it failed a gate, and
		// promoting it would give every Gateway what broke some. A new revision (a
		// change of the spec, or undo to an older one) starts a new rollout.
		s.revert(s.hasRevision)
		return s.result()
	case cfg.Promote == s.st.Revision:
		s.promote()
		return s.result()
	case cfg.Abort == s.st.Revision:
		s.revertStray()
		s.abort()
		return s.result()
	}
	return s.progress()
}

// stepper builds one step's result.
type stepper struct {
	st  *Status
	cfg Config
	obs Observation
	// pending are the targetRevisions this step sets, by Gateway.
	pending map[types.NamespacedName]assigned
	// stable is the blueprint's currentRevision after this step: the rollout's revision
	// once its last wave covers every Gateway (coverAll), else the one it started from.
	stable   int64
	requeue  time.Duration
	complete bool
}

// settled is the revision the Gateways ran before the recorded rollout: its From while
// its last wave has made its revision current but not passed the gate yet.
func settled(recorded *Status, current int64) int64 {
	if recorded != nil && recorded.Phase != gatewrightv1alpha1.RolloutComplete && recorded.Revision == current {
		return recorded.From
	}
	return current
}

// start begins a rollout of obs.Target from stable; one in progress for an older
// revision is abandoned, its Gateways going back to stable.
func start(cfg Config, obs Observation, stable int64) Result {
	s := &stepper{
		st:      &Status{Revision: obs.Target, From: stable},
		cfg:     cfg,
		obs:     obs,
		pending: map[types.NamespacedName]assigned{},
		stable:  stable,
	}
	if stable == 0 || stable == obs.Target {
		// A blueprint's first revision has nothing to roll from or back to, and the stable
		// revision has nothing to roll out.
		s.finish()
		return s.result()
	}
	if cfg.Paused {
		s.revertStray()
		s.st.Phase = gatewrightv1alpha1.RolloutPaused
		return s.result()
	}
	s.assignWave(0)
	s.revertStray()
	return s.result()
}

// progress holds the current wave until it passes its gate or its deadline.
func (s *stepper) progress() Result {
	s.revertStray()
	if s.cfg.Paused {
		s.st.Phase = gatewrightv1alpha1.RolloutPaused
		s.fill(false)
		return s.result()
	}
	if s.st.WaveStarted == nil {
		// Paused before its first wave (or a status edited by hand): start the wave.
		s.assignWave(s.st.Wave)
		return s.result()
	}
	if s.st.Phase == gatewrightv1alpha1.RolloutPaused {
		// Resuming restarts the wave's gate: the pause must not count against it.
		s.st.WaveStarted = s.now()
		s.st.Phase = gatewrightv1alpha1.RolloutProgressing
	}
	s.fill(false)
	gating, failing := s.judge()
	now := s.obs.Now
	deadline := s.st.WaveStarted.Add(s.cfg.GateDeadline)
	s.requeue = deadline.Sub(now)
	var late []Member
	if len(failing) == 0 {
		since := s.healthySince(gating)
		soaked := since.Add(s.cfg.Soak)
		if !now.Before(soaked) {
			s.assignWave(s.st.Wave + 1)
			return s.result()
		}
		s.requeue = min(soaked.Sub(now), s.requeue)
		late = s.healthyAt(gating, since)
	}
	if !now.Before(deadline) {
		s.rollBack(failing, late)
	}
	return s.result()
}

// healthySince is when the wave's soak started: the latest of its start and of the
// times its gating members became healthy. It is read from what the members record, not
// from the status, so that the soak costs no write and a restart counts the same soak.
// Excused members do not count: a tenant's edits, which excuse its Gateway, cannot
// restart the soak, and so cannot hold the wave to its deadline.
func (s *stepper) healthySince(gating []Member) time.Time {
	since := s.st.WaveStarted.Time
	for _, m := range gating {
		if m.HealthySince.After(since) {
			since = m.HealthySince
		}
	}
	return since
}

// healthyAt are the gating members that became healthy at since, the soak's start.
func (s *stepper) healthyAt(gating []Member, since time.Time) []Member {
	var late []Member
	for _, m := range gating {
		if m.HealthySince.Equal(since) {
			late = append(late, m)
		}
	}
	return late
}

func (s *stepper) result() Result {
	stable := s.stable
	if s.complete {
		stable = s.st.Revision
	}
	if s.st.Phase != gatewrightv1alpha1.RolloutProgressing {
		s.requeue = 0
	}
	return Result{Status: s.st, Assignments: s.assignments(), Stable: stable, RequeueAfter: max(s.requeue, 0)}
}

// assignments groups the pending targetRevisions that change something by revision and
// gate, the Gateways in namespace/name order.
func (s *stepper) assignments() []Assignment {
	var out []Assignment
	for _, m := range Order(s.obs.Members, "") {
		a, ok := s.pending[m.Key]
		if !ok || a.revision == m.Target {
			continue
		}
		i := slices.IndexFunc(out, func(o Assignment) bool { return o.Revision == a.revision && o.Gates == a.gates })
		if i < 0 {
			i = len(out)
			out = append(out, Assignment{Revision: a.revision, Gates: a.gates})
		}
		out[i].Gateways = append(out[i].Gateways, m.Key)
	}
	slices.SortFunc(out, func(a, b Assignment) int {
		if c := cmp.Compare(a.Revision, b.Revision); c != 0 {
			return c
		}
		return cmp.Compare(boolOrder(a.Gates), boolOrder(b.Gates))
	})
	return out
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *stepper) now() *metav1.Time {
	t := metav1.NewTime(s.obs.Now)
	return &t
}
