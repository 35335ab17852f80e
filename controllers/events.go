package controllers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
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
	r.EventRecorder.Event(object, eventtype, reason, truncateMessage(message, maxEventMessage))
}

func (r cappedRecorder) Eventf(object runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(object, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r cappedRecorder) AnnotatedEventf(object runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.EventRecorder.AnnotatedEventf(object, annotations, eventtype, reason, "%s", truncateMessage(fmt.Sprintf(messageFmt, args...), maxEventMessage))
}
