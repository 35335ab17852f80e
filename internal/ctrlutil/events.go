package ctrlutil

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
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

// NewEventBroadcaster is client-go's broadcaster with the budget of its spam filter kept
// per reason. client-go lets each source send 25 events about one object (then one per
// five minutes), keyed by the object and the event's type; and most events about a
// provider's objects are caused by tenants: each flip of a tenant's values that breaks
// and mends a render changes the blueprint's Rendered condition, an event each way, and
// 28 flips used up the blueprint's budget of Warnings, so that its RolloutRolledBack
// never appeared. Keyed by reason as well, a reason's events can use up only their own
// budget: RenderFailed never crowds out RolloutRolledBack or RolloutWave.
func NewEventBroadcaster() record.EventBroadcaster {
	return record.NewBroadcaster(record.WithCorrelatorOptions(record.CorrelatorOptions{SpamKeyFunc: spamKeyByReason}))
}

// spamKeyByReason is client-go's spam key (source, object, type) with the reason.
func spamKeyByReason(event *corev1.Event) string {
	return strings.Join([]string{
		event.Source.Component,
		event.Source.Host,
		event.InvolvedObject.Kind,
		event.InvolvedObject.Namespace,
		event.InvolvedObject.Name,
		string(event.InvolvedObject.UID),
		event.InvolvedObject.APIVersion,
		event.Type,
		event.Reason,
	}, "\x00")
}
