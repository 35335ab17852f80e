package ctrlutil

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"

	"github.com/gatewright/gatewright/internal/conditions"
)

// MaxEventMessage bounds every event message. An event tells that something happened,
// on every failed attempt, and is stored as it is: the conditions hold the detail.
// 1 KiB is also the most the events.k8s.io API takes.
const MaxEventMessage = 1 << 10

// CappedRecorder is an EventRecorder whose messages are cut to MaxEventMessage bytes,
// so that an error quoting users' input cannot make the event too large to record.
type CappedRecorder struct {
	record.EventRecorder
}

func (r CappedRecorder) Event(object runtime.Object, eventtype, reason, message string) {
	r.EventRecorder.Event(object, eventtype, reason, conditions.Truncate(message, MaxEventMessage))
}

func (r CappedRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(object, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r CappedRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.EventRecorder.AnnotatedEventf(object, annotations, eventtype, reason, "%s", conditions.Truncate(fmt.Sprintf(messageFmt, args...), MaxEventMessage))
}
