package main

import (
	"fmt"
	"strings"

	"github.com/gatewright/gatewright/internal/offline"
	"github.com/gatewright/gatewright/internal/rollout"
)

// revisionNotes says, for each blueprint with revisions that the change makes a new
// revision of, how its Gateways get it: the diff's after side is what they run once the
// rollout reaches them, not at once.
func revisionNotes(base, changed *offline.Set, live bool) []string {
	var notes []string
	for _, name := range changed.NewRevisions() {
		was := base.Blueprint(name)
		if was == nil || live && was.Status.TargetRevision == 0 {
			continue // a blueprint's first revision reaches every Gateway at once
		}
		// Files without the blueprint's status (a checkout in CI) stand for a cluster
		// where the blueprint has revisions already.
		revision := "a new revision"
		if was.Status.TargetRevision > 0 {
			revision = fmt.Sprintf("revision %d", was.Status.TargetRevision+1)
		}
		cfg := rollout.ConfigOf(changed.Blueprint(name))
		how := fmt.Sprintf("in waves (%s), each held until its Gateways are healthy", strings.Join(cfg.Waves, ", "))
		if len(cfg.Waves) == 1 && cfg.Waves[0] == "100%" {
			how = "all at once"
		}
		when := ""
		switch {
		case cfg.Unreadable != "":
			when = fmt.Sprintf(", once the rollout is no longer held (%s)", cfg.Unreadable)
		case cfg.Paused:
			when = ", once the paused rollout resumes"
		}
		notes = append(notes, fmt.Sprintf("GatewayClassBlueprint %s: the change is %s, which its Gateways get %s (spec.rollout)%s; after is what they run once it reaches them",
			name, revision, how, when))
	}
	return notes
}
