package ctrlutil

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// eventLog records what reaches the recorder that CappedRecorder wraps.
type eventLog struct{ messages, annotated []string }

func (l *eventLog) Event(_ runtime.Object, _, _, message string) {
	l.messages = append(l.messages, message)
}

func (l *eventLog) Eventf(_ runtime.Object, _, _, messageFmt string, args ...any) {
	l.messages = append(l.messages, fmt.Sprintf(messageFmt, args...))
}

func (l *eventLog) AnnotatedEventf(_ runtime.Object, annotations map[string]string, _, _, messageFmt string, args ...any) {
	l.annotated = append(l.annotated, annotations["a"])
	l.messages = append(l.messages, fmt.Sprintf(messageFmt, args...))
}

func TestCappedRecorder(t *testing.T) {
	log := &eventLog{}
	recorder := CappedRecorder{log}
	long := strings.Repeat("y", 40000)
	recorder.Event(nil, "Warning", "RenderFailed", long)
	recorder.Eventf(nil, "Warning", "ApplyFailed", "apply failed: %s", long)
	recorder.AnnotatedEventf(nil, map[string]string{"a": "b"}, "Normal", "Applied", "%s and %d more", long, 3)
	recorder.Eventf(nil, "Normal", "Pruned", "deleted %s", "a, b%")
	if len(log.messages) != 4 {
		t.Fatalf("%d events", len(log.messages))
	}
	for i, prefix := range []string{"yyy", "apply failed: yyy", "yyy"} {
		if m := log.messages[i]; !strings.HasPrefix(m, prefix) || len(m) > MaxEventMessage || !strings.HasSuffix(m, " bytes cut)") {
			t.Errorf("event %d: %d bytes: %q…", i, len(m), m[:min(len(m), 32)])
		}
	}
	if m := log.messages[3]; m != "deleted a, b%" {
		t.Errorf("a short message changed: %q", m)
	}
	if !slices.Equal(log.annotated, []string{"b"}) {
		t.Errorf("annotations: %v", log.annotated)
	}
}
