package offline

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Unread is a read FromCluster could not make with the caller's rights: a kind, where
// it was looked for, and the permission that was missing. Whether an answer depends on
// it is for the caller to judge (diff.Depends): a diff that needs it must not answer
// as if it had read nothing there.
type Unread struct {
	// Kind is the plural kind, as "Gateways".
	Kind string `json:"kind"`
	// Namespace is where it was listed; "" for a cluster-scoped kind, or with
	// AllNamespaces for a namespaced kind listed across every namespace.
	Namespace string `json:"namespace,omitempty"`
	// AllNamespaces tells that a namespaced kind could not be listed cluster-wide. It was
	// then listed in ReadIn instead, the namespaces the change and the caller name.
	AllNamespaces bool     `json:"allNamespaces,omitempty"`
	ReadIn        []string `json:"readIn,omitempty"`
	// Missing is the permission the API server refused, as "list gateways.gateway.networking.k8s.io".
	Missing string `json:"missing"`
	// Meaning is what stands in for what was not read, when the diff is computed anyway
	// (--partial).
	Meaning string `json:"meaning,omitempty"`
	// Reason is the API server's message.
	Reason string `json:"reason"`
}

// Where says where the kind was looked for, for a sentence.
func (u Unread) Where() string {
	switch {
	case u.AllNamespaces:
		return "in all namespaces"
	case u.Namespace != "":
		return "in namespace " + u.Namespace
	}
	return "(cluster-scoped)"
}

func (u Unread) String() string {
	s := fmt.Sprintf("%s %s: missing permission %s", u.Kind, u.Where(), u.Missing)
	if u.AllNamespaces && len(u.ReadIn) > 0 {
		s += " (read in namespace " + strings.Join(u.ReadIn, ", ") + " only)"
	}
	if u.Meaning != "" {
		s += "; " + u.Meaning
	}
	return s
}

// unreadOf describes the refused read of kind, whose resource the caller tried to
// verb, where namespace says ("" for every namespace when namespaced).
func unreadOf(err error, verb, kind, namespace string, namespaced bool) Unread {
	u := Unread{Kind: kind, Namespace: namespace, AllNamespaces: namespaced && namespace == "", Reason: err.Error()}
	u.Missing = verb + " " + resourceOf(err, kind)
	return u
}

// resourceOf is the resource, as "gateways.gateway.networking.k8s.io", that a Forbidden
// error names; the kind in lower case when it names none.
func resourceOf(err error, kind string) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if d := status.Status().Details; d != nil && d.Kind != "" {
			if d.Group == "" {
				return d.Kind
			}
			return d.Kind + "." + d.Group
		}
	}
	return strings.ToLower(kind)
}
