package main

import (
	"bytes"
	"encoding/pem"
	"os"
	"path/filepath"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// file is one entry of the image's only layer.
type file struct {
	path string // without a leading slash
	mode os.FileMode
	data []byte // nil for a directory
}

// The user the controller runs as: distroless's "nonroot", so that the chart's
// runAsUser and a cluster's policies written for distroless images hold.
const nonrootUser = "65532:65532"

const (
	binaryPath = "gatewright"
	caBundle   = "etc/ssl/certs/ca-certificates.crt"
)

// rootFS is everything the image holds: the binary, the CA certificates Go's crypto/x509
// reads on Linux, and the users it may run as (the controller writes no files, so the
// nonroot user needs no home).
func rootFS(binary []byte) []file {
	return []file{
		{path: "etc", mode: os.ModeDir | 0o755},
		{path: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{path: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin\n")},
		{path: "etc/ssl", mode: os.ModeDir | 0o755},
		{path: "etc/ssl/certs", mode: os.ModeDir | 0o755},
		{path: caBundle, mode: 0o644, data: caCertificates()},
		{path: binaryPath, mode: 0o755, data: binary},
	}
}

// caCertificates is Mozilla's root store as golang.org/x/crypto/x509roots/fallback
// ships it, PEM-encoded: pinned by go.sum, so that two builds of one commit hold the same
// bundle whatever the building machine has in /etc/ssl. Roots with a constraint a PEM
// bundle cannot carry (distrust after a date) are left out, as a stricter trust store.
func caCertificates() []byte {
	var out bytes.Buffer
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		// Writing to a bytes.Buffer does not fail.
		_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate})
	}
	return out.Bytes()
}

// writeRootFS writes the files under dir, for the Dockerfile, which copies them onto
// scratch to build the same filesystem.
func writeRootFS(dir string, files []file) error {
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.path))
		if f.data == nil {
			if err := os.MkdirAll(path, f.mode.Perm()); err != nil {
				return err
			}
			if err := os.Chmod(path, f.mode.Perm()); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(path, f.data, f.mode.Perm()); err != nil {
			return err
		}
		if err := os.Chmod(path, f.mode.Perm()); err != nil {
			return err
		}
	}
	return nil
}
