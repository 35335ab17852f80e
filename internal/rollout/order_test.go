package rollout

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestOrder(t *testing.T) {
	member := func(namespace, name, ring string) Member {
		m := Member{Key: types.NamespacedName{Namespace: namespace, Name: name}}
		if ring != "-" {
			m.NamespaceLabels = map[string]string{"ring": ring}
		}
		return m
	}
	cases := []struct {
		name    string
		label   string
		members []Member
		want    []string
	}{
		{"without an order label Gateways go by namespace, then name", "", []Member{
			member("b", "a", "0"), member("a-x", "b", "0"), member("a", "z", "0"), member("a", "c", "0"),
		}, []string{"a/c", "a/z", "a-x/b", "b/a"}},
		{"a smaller value of the label goes first, integers by value", "ring", []Member{
			member("a", "gw", "10"), member("b", "gw", "2"), member("c", "gw", "1"),
		}, []string{"c/gw", "b/gw", "a/gw"}},
		{"integers go before text, text compares as text, and a namespace without the label goes last", "ring", []Member{
			member("a", "gw", "-"), member("b", "gw", "canary"), member("c", "gw", "beta"), member("d", "gw", "3"),
		}, []string{"d/gw", "c/gw", "b/gw", "a/gw"}},
		{"an equal value falls back to namespace/name", "ring", []Member{
			member("b", "gw", "1"), member("a", "gw", "1"),
		}, []string{"a/gw", "b/gw"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, m := range Order(c.members, c.label) {
				got = append(got, m.Key.String())
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("order %v, want %v", got, c.want)
			}
		})
	}
}
