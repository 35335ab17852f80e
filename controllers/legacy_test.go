package controllers_test

import (
	"context"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// legacyFixture is what a legacy inventory annotation may name for one owner: the
// owner's own object, no longer rendered; an object of the same name and labels in
// another namespace; an object of the owner's namespace without its labels; and a
// Secret with the owner's labels that the annotation lists under another template.
type legacyFixture struct {
	stale, theirs, unlabelled *corev1.ConfigMap
	forged                    *corev1.Secret
}

// newLegacyFixture creates them; labels are the owner's labels for an object of a
// namespace.
func newLegacyFixture(ctx context.Context, namespace, otherNamespace, name string, labels func(namespace string) map[string]string) legacyFixture {
	owned := func(ns string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels(ns)}}
	}
	f := legacyFixture{
		stale:      owned(namespace),
		theirs:     owned(otherNamespace),
		unlabelled: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "tenant-data"}},
	}
	f.forged = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "forged", Labels: f.stale.Labels}}
	for _, obj := range []client.Object{f.stale, f.theirs, f.unlabelled, f.forged} {
		Expect(k8s.Create(ctx, obj)).To(Succeed())
	}
	return f
}

// entries are the objects as the annotation listed them, all under template "old" but
// the forged Secret.
func (f legacyFixture) entries() []map[string]string {
	return []map[string]string{
		{"v": "v1", "k": "ConfigMap", "ns": f.stale.Namespace, "n": f.stale.Name, "t": "old"},
		{"v": "v1", "k": "ConfigMap", "ns": f.theirs.Namespace, "n": f.theirs.Name, "t": "old"},
		{"v": "v1", "k": "ConfigMap", "ns": f.unlabelled.Namespace, "n": f.unlabelled.Name, "t": "old"},
		{"v": "v1", "k": "Secret", "ns": f.forged.Namespace, "n": f.forged.Name, "t": "wrong"},
	}
}

// expectOnlyTheStalePruned waits until the owner's own object is pruned, which only an
// entry moved into its Rendering does, and checks that nothing else was touched.
func (f legacyFixture) expectOnlyTheStalePruned(ctx context.Context) {
	Eventually(func() bool {
		return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKeyFromObject(f.stale), &corev1.ConfigMap{}))
	}).Should(BeTrue(), "the owner's own object that is no longer rendered is pruned")
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(f.theirs), &corev1.ConfigMap{})).To(Succeed(), "another namespace's object is not touched")
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(f.unlabelled), &corev1.ConfigMap{})).To(Succeed(), "an object without the owner's labels is not touched")
	Expect(k8s.Get(ctx, client.ObjectKeyFromObject(f.forged), &corev1.Secret{})).To(Succeed(), "an entry whose template label does not match is not touched")
}
