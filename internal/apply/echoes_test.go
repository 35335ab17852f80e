package apply

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func echoObject(kind, version string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("v1")
	obj.SetKind(kind)
	obj.SetNamespace("team")
	obj.SetName("web")
	obj.SetResourceVersion(version)
	return obj
}

// The events an apply causes are dropped; every other event of the object reaches the
// owner, at once or, when it arrived while an apply was in flight, once the apply's
// answer shows it was not the apply's own.
func TestEchoes(t *testing.T) {
	configMap := schema.GroupKind{Kind: "ConfigMap"}
	type step struct {
		do      string // apply: start an apply; answer: its answer (version, "" when it failed or changed nothing); event: an event of version
		kind    string
		version string
		// for events: whether it is dropped now, and whether it is passed on later
		dropped, requeued bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the answer comes before the apply's event", []step{
			{do: "apply"}, {do: "answer", version: "5"},
			{do: "event", version: "5", dropped: true},
			{do: "event", version: "6", dropped: false},
		}},
		{"the apply's event comes before its answer", []step{
			{do: "apply"},
			{do: "event", version: "5", dropped: true, requeued: false},
			{do: "answer", version: "5"},
			{do: "event", version: "6", dropped: false},
		}},
		{"someone else's event while the apply is in flight", []step{
			{do: "apply"},
			{do: "event", version: "4", dropped: true, requeued: true},
			{do: "answer", version: "5"},
			{do: "event", version: "5", dropped: true},
		}},
		{"someone else's event after the answer, before the apply's", []step{
			{do: "apply"}, {do: "answer", version: "5"},
			{do: "event", version: "7", dropped: false},
			{do: "event", version: "8", dropped: false},
		}},
		{"the apply failed or changed nothing", []step{
			{do: "apply"},
			{do: "event", version: "4", dropped: true, requeued: true},
			{do: "answer", version: ""},
			{do: "event", version: "5", dropped: false},
		}},
		{"another apply of the object starts while one is in flight", []step{
			{do: "apply"},
			{do: "event", version: "4", dropped: true, requeued: true},
			{do: "apply"}, {do: "answer", version: "5"},
			{do: "event", version: "5", dropped: true},
		}},
		{"no apply", []step{
			{do: "event", version: "3", dropped: false},
		}},
		{"an object of another kind and the same name", []step{
			{do: "apply"}, {do: "answer", version: "5"},
			{do: "event", kind: "Secret", version: "5", dropped: false},
			{do: "event", version: "5", dropped: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e echoes
			applied := echoObject("ConfigMap", "")
			requeued := map[int]bool{}
			for i, s := range tt.steps {
				switch s.do {
				case "apply":
					e.applying(applied)
				case "answer":
					var live *unstructured.Unstructured
					if s.version != "" {
						live = echoObject("ConfigMap", s.version)
					}
					e.applied(applied, live)
				case "event":
					kind := configMap
					if s.kind != "" {
						kind = schema.GroupKind{Kind: s.kind}
					}
					i := i
					if dropped := e.observed(kind, echoObject(kind.Kind, s.version), func() { requeued[i] = true }); dropped != s.dropped {
						t.Errorf("step %d: event of version %s dropped: %v, want %v", i, s.version, dropped, s.dropped)
					}
				}
			}
			for i, s := range tt.steps {
				if requeued[i] != s.requeued {
					t.Errorf("step %d: event of version %s passed on later: %v, want %v", i, s.version, requeued[i], s.requeued)
				}
			}
			if len(e.objects) != 0 {
				t.Errorf("%d applies still wait for their event", len(e.objects))
			}
		})
	}
}
