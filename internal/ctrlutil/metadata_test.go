package ctrlutil

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKeepIdentityKeepsOnlyTheIdentity(t *testing.T) {
	in := Metadata(corev1.SchemeGroupVersion.WithKind("Secret"))
	in.ObjectMeta = metav1.ObjectMeta{
		Namespace: "team-a", Name: "web-tls", UID: "1234", ResourceVersion: "42", Generation: 1,
		Labels:          map[string]string{"app": "web"},
		Annotations:     map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"tls.key":"c2VjcmV0"}}`},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		OwnerReferences: []metav1.OwnerReference{{Name: "issuer"}},
	}
	out, err := KeepIdentity(in)
	if err != nil {
		t.Fatal(err)
	}
	want := Metadata(corev1.SchemeGroupVersion.WithKind("Secret"))
	want.ObjectMeta = metav1.ObjectMeta{Namespace: "team-a", Name: "web-tls", UID: "1234", ResourceVersion: "42"}
	if !equality.Semantic.DeepEqual(out, want) {
		t.Errorf("cached %+v, want only the identity %+v: annotations may quote the Secret", out, want)
	}
}
