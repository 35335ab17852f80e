package explain

import (
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// ParentKey reads a Gateway named as --gateway takes it, [NAMESPACE/]NAME; a bare NAME
// is in defaultNamespace.
func ParentKey(ref, defaultNamespace string) types.NamespacedName {
	if namespace, name, ok := strings.Cut(ref, "/"); ok {
		return types.NamespacedName{Namespace: namespace, Name: name}
	}
	return types.NamespacedName{Namespace: defaultNamespace, Name: ref}
}
