package rollout

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// assignWave starts the first wave from index k on that adds a Gateway to those already
// assigned (with few Gateways, 1 and 10% are the same wave), or completes the rollout
// when every Gateway has the revision.
func (s *stepper) assignWave(k int32) {
	n := len(s.obs.Members)
	assigned := len(s.assigned())
	if assigned >= n {
		s.finish()
		return
	}
	sizes := WaveSizes(n, s.cfg.Waves)
	wave := int32(len(sizes) - 1) // waves edited to fewer mid-rollout: the rest at once
	for i := int(k); i < len(sizes); i++ {
		if sizes[i] > assigned {
			wave = int32(i)
			break
		}
	}
	s.st.Phase = gatewrightv1alpha1.RolloutProgressing
	s.st.Wave = wave
	s.st.WaveStarted = s.now()
	s.st.Updated = int32(sizes[wave])
	s.st.WaveEnd, s.st.Excused = nil, nil
	s.requeue = s.cfg.GateDeadline
	if sizes[wave] >= n {
		s.coverAll()
	} else if last, ok := s.fill(true); ok {
		s.st.WaveEnd = positionOf(last, s.cfg.OrderLabel)
	}
	s.judge() // the excused, in the write that starts the wave
}

// coverAll starts a wave that takes every Gateway (the last, or all at once) by making
// the revision the blueprint's currentRevision, which every Gateway not assigned a newer
// one runs: no write per Gateway. A Gateway that is not healthy now is assigned the
// revision all the same, as not gating: its tenant's breakage must neither hold nor
// roll back the provider's change. The others gate if they were members when the wave
// started (gates), as a Gateway a wave takes does.
func (s *stepper) coverAll() {
	for _, m := range Order(s.obs.Members, "") {
		if !s.hasRevision(m) && !m.Healthy {
			s.pending[m.Key] = assigned{revision: s.st.Revision}
		}
	}
	s.stable = s.st.Revision
}

// gates says whether m, which has the revision, holds the wave's gate: by what its
// assignment recorded, or, when the revision came to it as the current one (coverAll),
// whether it was a member, and so healthy, when the wave started.
func (s *stepper) gates(m Member) bool {
	if m.Target == s.st.Revision {
		return m.Gates
	}
	return m.Recorded.Before(s.st.WaveStarted.Time)
}

// fill assigns the revision to the next Gateways in order until the wave has
// status.updated of them, and returns the last it took: as the wave starts (starting),
// and again after a restart that wrote the status but not every assignment. Past the
// wave's recorded end it takes none, so a Gateway of the wave deleted (or moved to
// another class) is not replaced: the first render of a stand-in would restart the soak,
// and a tenant deleting its Gateways one by one would hold the wave. Nor does it take a
// Gateway created after the wave started, nor, after its start, one created or whose
// tenant inputs changed (moved into the class, say) since the second it started (the
// status records it to the second): it runs the stable revision until the next wave.
func (s *stepper) fill(starting bool) (last Member, took bool) {
	need := int(s.st.Updated) - len(s.assigned())
	if need <= 0 || s.st.WaveStarted == nil {
		return last, false
	}
	started := s.st.WaveStarted.Time
	joined := func(m Member) bool { return !m.Created.After(started) }
	if !starting {
		started = started.Truncate(time.Second)
		joined = func(m Member) bool { return m.Created.Before(started) && m.InputsSince.Before(started) }
	}
	for _, m := range Order(s.obs.Members, s.cfg.OrderLabel) {
		if need == 0 || (s.st.WaveEnd != nil && after(m, s.st.WaveEnd, s.cfg.OrderLabel)) {
			break
		}
		if !s.hasRevision(m) && joined(m) {
			s.take(m)
			need--
			last, took = m, true
		}
	}
	return last, took
}

// take assigns m the rollout's revision; its health on the revision it runs now says
// whether it gates the wave.
func (s *stepper) take(m Member) {
	s.pending[m.Key] = assigned{revision: s.st.Revision, gates: m.Healthy}
}

// assigned are the members that have the revision once this step's assignments are made.
func (s *stepper) assigned() []Member {
	var members []Member
	for _, m := range s.obs.Members {
		if s.hasRevision(m) {
			members = append(members, m)
		}
	}
	return members
}

// hasRevision says whether m has the rollout's revision once this step's assignments are made.
func (s *stepper) hasRevision(m Member) bool {
	return s.targetOf(m) == s.st.Revision
}

// targetOf is the revision m runs once this step's assignments are made and the
// blueprint's currentRevision is s.stable: its target when newer, else s.stable.
func (s *stepper) targetOf(m Member) int64 {
	target := m.Target
	if a, ok := s.pending[m.Key]; ok {
		target = a.revision
	}
	return max(target, s.stable)
}

// judge sorts the members that have the revision into those that gate the wave and
// those excused from it, which it records in the status, and returns the gating ones
// and, of those, the ones not yet healthy on the revision, in order. A Gateway assigned
// the revision in this step gates as its assignment says and is not healthy yet.
func (s *stepper) judge() (gating, failing []Member) {
	var excused []gatewrightv1alpha1.ExcusedGateway
	more := int32(0)
	for _, m := range Order(s.assigned(), s.cfg.OrderLabel) {
		why := ""
		if a, ok := s.pending[m.Key]; ok {
			if a.gates {
				m.Reason = "it is assigned the revision in this step"
				failing = append(failing, m)
				continue
			}
			why = notGating
		} else {
			why = s.excuse(m)
		}
		if why != "" {
			if len(excused) < gatewrightv1alpha1.MaxRolloutExcusedGateways {
				excused = append(excused, gatewrightv1alpha1.ExcusedGateway{Gateway: m.Key.String(), Reason: truncate(why, gatewrightv1alpha1.MaxRolloutExcusedReason)})
			} else {
				more++
			}
			continue
		}
		gating = append(gating, m)
		if m.Running != s.st.Revision || !m.Healthy {
			if m.Reason == "" {
				m.Reason = fmt.Sprintf("it runs revision %d, not %d", m.Running, s.st.Revision)
			}
			failing = append(failing, m)
		}
	}
	s.st.Excused = nil
	if len(excused) > 0 {
		s.st.Excused = &gatewrightv1alpha1.RolloutExcused{Gateways: excused, More: more}
	}
	return gating, failing
}

// notGating is why a Gateway that was not healthy when it took the revision does not gate.
const notGating = "it was not healthy on the revision it ran when it took this one"

// excuse says why m, which has the revision, does not gate the wave; "" when it does.
// Only a failure the revision causes may roll it back: m gates when it was healthy as
// the wave took it and nothing its tenant controls changed since (since it first
// rendered the revision, or the wave started, whichever came first). Its tenant's own
// edits apply at once, with the revision (by design), so a Gateway that fails after one
// of them fails for its tenant, and one that keeps changing would keep restarting the
// soak; both stop gating. Deleted and recreated Gateways are other Gateways, which the
// wave did not take.
//
// The times compared are whole seconds, as records keep them. Inputs first recorded with
// the record itself are no tenant's change, whenever the record was made: counted as
// one, a Gateway made in the second its wave started, or took the revision, would not
// gate, and a revision that breaks every Gateway of a young fleet would roll out.
func (s *stepper) excuse(m Member) string {
	changed := "its Gateway, GatewayConfigs or routes changed"
	changedSinceRecorded := m.InputsSince.After(m.Recorded)
	switch {
	case !s.gates(m) && m.Target == s.st.Revision:
		return notGating
	case !s.gates(m):
		return "it joined the class after the wave started"
	case m.InputsUnrendered:
		return changed + " since its last render"
	case changedSinceRecorded && m.Running == s.st.Revision && !m.RevisionSince.IsZero() && !m.InputsSince.Before(m.RevisionSince),
		changedSinceRecorded && !m.InputsSince.Before(s.st.WaveStarted.Truncate(time.Second)):
		return fmt.Sprintf("%s after it took revision %d", changed, s.st.Revision)
	case !m.Healthy && m.TenantOnly:
		return "it fails for a reason in its tenant's control: " + m.Reason
	}
	return ""
}

// truncate cuts s to at most n bytes, between characters.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n-3], "") + "..."
}

// revert sets the Gateways that match back to the revision the rollout started from.
func (s *stepper) revert(match func(Member) bool) {
	for _, m := range Order(s.obs.Members, "") {
		if match(m) {
			s.pending[m.Key] = assigned{revision: s.st.From}
		}
	}
}

// revertStray sends back Gateways assigned a revision newer than the one the rollout
// started from that is not this rollout's: those of a rollout a newer revision
// abandoned. An older target is no stray: the current revision overrides it.
func (s *stepper) revertStray() {
	s.revert(func(m Member) bool {
		target := m.Target
		if a, ok := s.pending[m.Key]; ok {
			target = a.revision
		}
		return target > s.st.From && target != s.st.Revision
	})
}

func (s *stepper) finish() {
	s.st.Phase = gatewrightv1alpha1.RolloutComplete
	s.st.Updated = int32(len(s.assigned()))
	s.complete = true
}

// rollBack sends the wave's Gateways back to the revision the rollout started from and
// records why, naming the first Gateways at fault (failing, else late: healthy too late
// for the soak) and counting the rest.
func (s *stepper) rollBack(failing, late []Member) {
	failure := &gatewrightv1alpha1.RolloutFailure{Revision: s.st.Revision, Wave: s.st.Wave}
	named := failing
	if len(named) == 0 {
		named = late
	}
	for i, m := range named {
		if i == gatewrightv1alpha1.MaxRolloutFailureGateways {
			failure.MoreGateways = int32(len(named) - i)
			break
		}
		failure.Gateways = append(failure.Gateways, m.Key.String())
	}
	switch {
	case len(failing) > 0:
		failure.Message = fmt.Sprintf("Gateway %s is not healthy on revision %d after %s: %s",
			failing[0].Key, s.st.Revision, s.cfg.GateDeadline, failing[0].Reason)
	case len(late) > 0:
		failure.Message = fmt.Sprintf("Gateway %s turned healthy on revision %d at %s, too late to be healthy for %s within %s of the wave's start",
			late[0].Key, s.st.Revision, late[0].HealthySince.UTC().Format(time.RFC3339), s.cfg.Soak, s.cfg.GateDeadline)
	default:
		failure.Message = fmt.Sprintf("the wave was not healthy for %s within %s of its start", s.cfg.Soak, s.cfg.GateDeadline)
	}
	failure.Message = truncate(failure.Message, gatewrightv1alpha1.MaxRolloutFailureMessage)
	s.goBack(failure)
}

// goBack sends every Gateway that has the revision back to the one the rollout started
// from, none getting it in this step, and records why.
func (s *stepper) goBack(failure *gatewrightv1alpha1.RolloutFailure) {
	for key, a := range s.pending {
		if a.revision == s.st.Revision {
			delete(s.pending, key)
		}
	}
	s.st.Phase = gatewrightv1alpha1.RolloutRolledBack
	s.st.Failure = failure
	s.stable = s.st.From // a wave that covered every Gateway ends with it
	s.revert(s.hasRevision)
}

// promote assigns the revision to every Gateway that does not have it, those created
// since the wave started too, and completes the rollout: the provider asked for it.
func (s *stepper) promote() {
	s.st.Failure = nil
	for _, m := range s.obs.Members {
		if !s.hasRevision(m) {
			s.take(m)
		}
	}
	s.finish()
}

// abort sends every Gateway that has the revision back, as a failed gate does: the
// provider asked for it.
func (s *stepper) abort() {
	s.goBack(&gatewrightv1alpha1.RolloutFailure{
		Revision: s.st.Revision, Wave: s.st.Wave,
		Message: fmt.Sprintf("aborted by the provider (annotation %s: %q)", gatewrightv1alpha1.AnnotationRolloutAbort, strconv.FormatInt(s.st.Revision, 10)),
	})
}
