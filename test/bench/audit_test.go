package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// auditLines are events as kube-apiserver logs them at level Metadata without the
// RequestReceived stage, one request a second from 10:00:00.
var auditLines = []string{
	`{"auditID":"1","stage":"ResponseStarted","verb":"watch","requestURI":"/api/v1/configmaps?watch=true","objectRef":{"resource":"configmaps","apiVersion":"v1"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-25T10:00:00.000000Z"}`,
	`{"auditID":"2","stage":"ResponseComplete","verb":"get","requestURI":"/api/v1/namespaces/t/configmaps/a","objectRef":{"resource":"configmaps","namespace":"t","name":"a","apiVersion":"v1"},"responseStatus":{"code":404},"requestReceivedTimestamp":"2026-11-25T10:00:01.000000Z"}`,
	`{"auditID":"3","stage":"ResponseComplete","verb":"patch","requestURI":"/api/v1/namespaces/t/configmaps/a?dryRun=All\u0026fieldManager=gatewright","objectRef":{"resource":"configmaps","namespace":"t","name":"a","apiVersion":"v1"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-25T10:00:02.000000Z"}`,
	`{"auditID":"4","stage":"ResponseComplete","verb":"patch","requestURI":"/api/v1/namespaces/t/configmaps/a?fieldManager=gatewright\u0026force=true","objectRef":{"resource":"configmaps","namespace":"t","name":"a","apiVersion":"v1"},"responseStatus":{"code":201},"requestReceivedTimestamp":"2026-11-25T10:00:03.000000Z"}`,
	`{"auditID":"5","stage":"ResponseComplete","verb":"patch","requestURI":"/apis/gateway.networking.k8s.io/v1/namespaces/t/gateways/w/status","objectRef":{"resource":"gateways","subresource":"status","namespace":"t","name":"w"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-25T10:00:04.000000Z"}`,
	`{"auditID":"6","stage":"ResponseComplete","verb":"create","requestURI":"/api/v1/namespaces/t/events","objectRef":{"resource":"events","namespace":"t"},"responseStatus":{"code":201},"requestReceivedTimestamp":"2026-11-25T10:00:05.000000Z"}`,
	`{"auditID":"7","stage":"ResponseComplete","verb":"get","requestURI":"/apis","responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-25T10:00:06.000000Z"}`,
	`{"auditID":"1","stage":"ResponseComplete","verb":"watch","requestURI":"/api/v1/configmaps?watch=true","objectRef":{"resource":"configmaps","apiVersion":"v1"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-25T10:00:00.000000Z"}`,
}

func at(second int) time.Time { return time.Date(2026, 11, 25, 10, 0, second, 0, time.UTC) }

func TestAuditLogCountsEachRequestOnceByWhatItDid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	log := &auditLog{path: path}
	if err := log.read(); err != nil {
		t.Fatalf("a log not written yet: %v", err)
	}
	// The API server may be in the middle of a line when the harness reads.
	var text string
	for _, line := range auditLines {
		text += line + "\n"
	}
	half := len(text) / 2
	for _, part := range []string{text[:half], text} {
		if err := os.WriteFile(path, []byte(part), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := log.read(); err != nil {
			t.Fatal(err)
		}
	}

	want := tally{Requests: 7, Writes: 3, Status: 1, Events: 1, Gets: 1, Watches: 1, DryRuns: 1, Discovery: 1, Failed: 1,
		ByKind: map[string]int{
			"watch configmaps": 1, "get configmaps": 1, "dry-run patch configmaps": 1, "patch configmaps": 1,
			"patch gateways/status": 1, "create events": 1, "get (discovery)": 1,
		},
		WritesByNamespace: map[string]int{"t": 3}}
	if diff := cmp.Diff(want, log.tally(at(0), at(7))); diff != "" {
		t.Errorf("tally of the whole log (-want +got):\n%s", diff)
	}
	window := log.tally(at(2), at(4))
	if window.Requests != 2 || window.Writes != 1 || window.DryRuns != 1 {
		t.Errorf("the window [10:00:02, 10:00:04) holds the dry run and the apply; got %+v", window)
	}
	if n, last := log.activity(); n != 7 || !last.Equal(at(6)) {
		t.Errorf("activity: %d requests, the last other than a watch at %s; want 7 and %s", n, last, at(6))
	}
}
