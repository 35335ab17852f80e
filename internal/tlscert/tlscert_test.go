package tlscert

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gatewright/gatewright/test/testenv"
)

// pair returns a self-signed certificate and its key, PEM-encoded.
func pair(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	certPEM, keyPEM, err := testenv.Certificate("example.com")
	if err != nil {
		t.Fatal(err)
	}
	return certPEM, keyPEM
}

func tlsSecret(crt, key []byte) *corev1.Secret {
	return &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key}}
}

func TestCheck(t *testing.T) {
	crt, key := pair(t)
	_, otherKey := pair(t)
	opaque := tlsSecret(crt, key)
	opaque.Type = corev1.SecretTypeOpaque
	noKey := tlsSecret(crt, nil)
	tests := []struct {
		name   string
		secret *corev1.Secret
		want   string // "" when usable, else a part of the error
	}{
		{"a kubernetes.io/tls Secret with a certificate and its key is usable", tlsSecret(crt, key), ""},
		{"an Opaque Secret is refused even with the right keys", opaque, `is of type "Opaque", not kubernetes.io/tls`},
		{"a Secret without a private key is refused", noKey, "has no tls.key"},
		{"text that is no PEM is refused, as the conformance suite's malformed Secret", tlsSecret([]byte("Hello world\n"), []byte("Hello world\n")), "does not hold a usable certificate and key: tls: failed to find any PEM data in certificate input"},
		{"a key that does not match the certificate is refused", tlsSecret(crt, otherKey), "does not hold a usable certificate and key: tls: private key does not match public key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.secret)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want usable", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
			if err != nil {
				for _, data := range tt.secret.Data {
					if len(data) > 0 && strings.Contains(err.Error(), strings.TrimSpace(string(data))) {
						t.Errorf("the error %q quotes the Secret's data", err)
					}
				}
			}
		})
	}
}

func TestVerdicts(t *testing.T) {
	crt, key := pair(t)
	good := tlsSecret(crt, key)
	bad := tlsSecret(crt, nil)
	var fetches int
	serving := func(secret *corev1.Secret, resourceVersion string) Fetch {
		return func() (*corev1.Secret, error) {
			fetches++
			if secret == nil {
				return nil, nil
			}
			s := secret.DeepCopy()
			s.ResourceVersion = resourceVersion
			return s, nil
		}
	}
	judge := func(v *Verdicts, name, resourceVersion string, fetch Fetch) string {
		t.Helper()
		why, err := v.Judge("team-a", name, resourceVersion, fetch)
		if err != nil {
			t.Fatal(err)
		}
		return why
	}

	t.Run("a Secret is read once per resourceVersion, however often it is judged", func(t *testing.T) {
		v, fetches0 := NewVerdicts(10), fetches
		for range 3 {
			if why := judge(v, "tls", "1", serving(good, "1")); why != "" {
				t.Fatalf("got %q, want usable", why)
			}
		}
		if fetches-fetches0 != 1 {
			t.Fatalf("%d reads, want 1: the steady state reads nothing", fetches-fetches0)
		}
		if why := judge(v, "tls", "2", serving(bad, "2")); why != "has no tls.key" {
			t.Fatalf("got %q after the Secret changed", why)
		}
		if fetches-fetches0 != 2 {
			t.Fatalf("%d reads, want 2: a new resourceVersion is read again", fetches-fetches0)
		}
	})

	t.Run("a verdict is kept under the resourceVersion read, so a cache that lags reads again until it catches up", func(t *testing.T) {
		v, fetches0 := NewVerdicts(10), fetches
		judge(v, "tls", "1", serving(good, "2"))
		judge(v, "tls", "1", serving(good, "2"))
		judge(v, "tls", "2", serving(good, "2"))
		if fetches-fetches0 != 2 {
			t.Fatalf("%d reads, want 2", fetches-fetches0)
		}
	})

	t.Run("a Secret gone since the cache saw it does not exist, and its verdict is dropped", func(t *testing.T) {
		v := NewVerdicts(10)
		judge(v, "tls", "1", serving(good, "1"))
		if why := judge(v, "tls", "3", serving(nil, "")); why != "does not exist" {
			t.Fatalf("got %q", why)
		}
		if v.Len() != 0 {
			t.Fatalf("%d verdicts kept, want 0", v.Len())
		}
	})

	t.Run("at most max verdicts are kept, the least recently used dropped first", func(t *testing.T) {
		v := NewVerdicts(2)
		judge(v, "a", "1", serving(good, "1"))
		judge(v, "b", "1", serving(good, "1"))
		judge(v, "a", "1", serving(good, "1")) // a is now the most recently used
		judge(v, "c", "1", serving(good, "1"))
		if v.Len() != 2 {
			t.Fatalf("%d verdicts kept, want 2", v.Len())
		}
		fetches0 := fetches
		judge(v, "a", "1", serving(good, "1"))
		if fetches != fetches0 {
			t.Error("a, used recently, was dropped")
		}
		judge(v, "b", "1", serving(good, "1"))
		if fetches != fetches0+1 {
			t.Error("b, the least recently used, was kept")
		}
	})
}
