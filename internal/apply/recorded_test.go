package apply

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gatewright/gatewright/internal/scheme"
)

func TestReadinessJudgesByTheRecordsJudgeAndSaysWhy(t *testing.T) {
	object := func(apiVersion, kind, name string) *unstructured.Unstructured {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion(apiVersion)
		obj.SetKind(kind)
		obj.SetNamespace("team-a")
		obj.SetName(name)
		obj.SetGeneration(1)
		return obj
	}
	// flagIsNotReady stands for a blueprint whose readyWhen holds the objects of template
	// flag back.
	flagIsNotReady := func(_ *unstructured.Unstructured, template string) (bool, string) {
		if template == "flag" {
			return false, "readyWhen is false"
		}
		return true, ""
	}
	tests := []struct {
		name         string
		judge        func(*unstructured.Unstructured, string) (bool, string)
		flag         string // the kind of object flag; a ConfigMap when empty
		wantNotReady string
		wantReady    string
	}{
		{name: "the record's judge decides and its reason is shown", judge: flagIsNotReady,
			wantNotReady: "[ConfigMap team-a/flag: readyWhen is false]", wantReady: "map[app:true flag:false]"},
		{name: "without a judge, kstatus calls a ConfigMap ready", judge: nil,
			wantNotReady: "[]", wantReady: "map[app:true flag:true]"},
		{name: "without a judge, a Deployment kstatus finds not ready is named without kstatus's counts", judge: nil, flag: "Deployment",
			wantNotReady: "[Deployment team-a/flag]", wantReady: "map[app:true flag:false]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme.New()).Build()
			a := New(c, c)
			owner := GatewayOwner(&gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}})
			rec := &Record{owner: owner, Readiness: tt.judge}
			applied := []*unstructured.Unstructured{object("v1", "ConfigMap", "app"), object("v1", "ConfigMap", "flag")}
			if tt.flag == "Deployment" {
				applied[1] = object("apps/v1", "Deployment", "flag")
			}
			// The record says which template rendered each; the labels of the live flag
			// name another, which changes nothing.
			applied[1].SetLabels(map[string]string{templateLabel: "app"})
			inv := Inventory{entryOf(applied[0]), entryOf(applied[1])}
			inv[0].Template, inv[1].Template = "app", "flag"
			notReady, err := a.readiness(context.Background(), owner, rec.readiness(), nil, inv, applied)
			if err != nil {
				t.Fatal(err)
			}
			ready := map[string]bool{}
			for _, e := range inv {
				ready[e.Name] = e.Ready
			}
			if got := fmt.Sprint(notReady); got != tt.wantNotReady {
				t.Errorf("not ready %s, want %s", got, tt.wantNotReady)
			}
			if got := fmt.Sprint(ready); got != tt.wantReady {
				t.Errorf("entries ready %s, want %s", got, tt.wantReady)
			}
		})
	}
}
