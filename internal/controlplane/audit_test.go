package controlplane_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/gatewright/gatewright/internal/controlplane"
)

// auditEvent is the part of an audit.k8s.io/v1 Event the test reads.
type auditEvent struct {
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource string `json:"resource"`
		Name     string `json:"name"`
	} `json:"objectRef"`
}

func TestAuditLogRecordsTheRequestsOfTheNamedUsersOnly(t *testing.T) {
	bin, err := controlplane.FindBinaries(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := controlplane.New(bin, nil) // the CRDs play no part here, and installing them takes seconds
	logPath, err := controlplane.EnableAuditLog(env, t.TempDir(), "audited")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	audited := clientAs(t, env, "audited")
	other := clientAs(t, env, "other")

	ctx := context.Background()
	for name, k8s := range map[string]client.Client{"by-audited": audited, "by-other": other} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
		if err := k8s.Create(ctx, cm.DeepCopy(), client.DryRunAll); err != nil {
			t.Fatal(err)
		}
		if err := k8s.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}

	var creates []string
	for _, event := range readAuditLog(t, logPath) {
		if event.User.Username != "audited" {
			t.Errorf("logged a request of user %q: %s %s", event.User.Username, event.Verb, event.RequestURI)
		}
		if event.Stage == "RequestReceived" {
			t.Errorf("logged the RequestReceived stage of %s %s", event.Verb, event.RequestURI)
		}
		if event.Verb == "create" && event.ObjectRef != nil && event.ObjectRef.Resource == "configmaps" {
			creates = append(creates, event.ObjectRef.Name+" "+event.RequestURI)
		}
	}
	want := []string{
		"by-audited /api/v1/namespaces/default/configmaps?dryRun=All",
		"by-audited /api/v1/namespaces/default/configmaps",
	}
	if len(creates) != len(want) || creates[0] != want[0] || creates[1] != want[1] {
		t.Errorf("ConfigMap creates in the audit log:\n got %q\nwant %q", creates, want)
	}
}

func clientAs(t *testing.T, env *envtest.Environment, name string) client.Client {
	t.Helper()
	user, err := env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k8s, err := client.New(user.Config(), client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return k8s
}

func readAuditLog(t *testing.T, path string) []auditEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []auditEvent
	lines := bufio.NewScanner(f)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var event auditEvent
		if err := json.Unmarshal(lines.Bytes(), &event); err != nil {
			t.Fatalf("%s: %v", lines.Text(), err)
		}
		events = append(events, event)
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}
