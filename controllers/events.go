package controllers

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	"github.com/gatewright/gatewright/internal/apply"
	"github.com/gatewright/gatewright/internal/conditions"
)

// maxEventMessage bounds every event message. An event tells that something happened,
// on every failed attempt, and is stored as it is: the conditions hold the detail.
// 1 KiB is also the most the events.k8s.io API takes, should Gatewright move to it.
const maxEventMessage = 1 << 10

// cappedRecorder is an EventRecorder whose messages are cut to maxEventMessage bytes,
// so that an error quoting tenants' input cannot make the event too large to record.
type cappedRecorder struct {
	record.EventRecorder
}

func (r cappedRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.EventRecorder.Event(object, eventtype, reason, conditions.Truncate(message, maxEventMessage))
}

func (r cappedRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(object, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r cappedRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.EventRecorder.AnnotatedEventf(object, annotations, eventtype, reason, "%s", conditions.Truncate(fmt.Sprintf(messageFmt, args...), maxEventMessage))
}

// recordChanges tells in events on obj what an apply changed and pruned. An owner's
// first apply, which creates everything it renders, sends none: its conditions and its
// Rendering say what was made, and an event there would cost the API server a write
// per Gateway for what the status already says. Events are for what changes later:
// drift corrected, a new blueprint or values applied, objects pruned.
func recordChanges(recorder record.EventRecorder, obj runtime.Object, first bool, applied *apply.Result) {
	if len(applied.Changed) > 0 && !first {
		recorder.Event(obj, "Normal", "Applied", "applied "+strings.Join(applied.Changed, ", "))
	}
	if len(applied.Pruned) > 0 {
		recorder.Event(obj, "Normal", "Pruned", "deleted what is no longer rendered: "+strings.Join(applied.Pruned, ", "))
	}
}
