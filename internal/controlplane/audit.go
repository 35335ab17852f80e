package controlplane

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// EnableAuditLog makes the API server of env, not yet started, write an audit log into
// dir and returns the log's path. The log has one JSON line per request of the given
// users (of every user when none is given) at level Metadata: who, verb, resource and
// request URI, no bodies. A request is logged when it completes, a watch also when its
// response starts; the RequestReceived stage is left out.
func EnableAuditLog(env *envtest.Environment, dir string, users ...string) (string, error) {
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n"
	if len(users) > 0 {
		policy += fmt.Sprintf("  users: [%s]\n- level: None\n", quoteAll(users))
	}
	policyPath := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policyPath, []byte(policy), 0o600); err != nil {
		return "", fmt.Errorf("writing the audit policy: %w", err)
	}
	logPath := filepath.Join(dir, "audit.log")
	env.ControlPlane.GetAPIServer().Configure().
		Set("audit-policy-file", policyPath).
		Set("audit-log-path", logPath).
		Set("audit-log-format", "json")
	return logPath, nil
}

// quoteAll quotes each name for a YAML flow sequence.
func quoteAll(names []string) string {
	quoted := make([]string, len(names))
	for i, name := range names {
		quoted[i] = fmt.Sprintf("%q", name)
	}
	return strings.Join(quoted, ", ")
}
