// Package tlscert judges whether a Secret holds a certificate a listener can serve, and
// keeps those verdicts, so that the controller reads a Secret again only when it
// changed. A verdict is a sentence; nothing of a Secret's data is ever kept. It is plain
// Go, shared by the controller and the offline commands.
package tlscert

import (
	"crypto/tls"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Check says why secret cannot serve as a listener's certificate, or returns nil when
// it can: it must be of type kubernetes.io/tls and hold a PEM certificate chain in
// tls.crt with the matching private key in tls.key. The error quotes none of the data.
func Check(secret *corev1.Secret) error {
	if secret.Type != corev1.SecretTypeTLS {
		return fmt.Errorf("is of type %q, not %s", secret.Type, corev1.SecretTypeTLS)
	}
	for _, key := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
		if len(secret.Data[key]) == 0 {
			return fmt.Errorf("has no %s", key)
		}
	}
	// crypto/tls's errors name what is wrong (no PEM block, a key that does not match),
	// never the bytes.
	if _, err := tls.X509KeyPair(secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey]); err != nil {
		return fmt.Errorf("does not hold a usable certificate and key: %w", err)
	}
	return nil
}
