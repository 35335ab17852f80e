package main

import (
	"archive/tar"
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// tinyBinary builds a static program that answers --version as gatewright does, in a
// second or two, instead of the controller.
func tinyBinary(t *testing.T, version string) []byte {
	t.Helper()
	dir := t.TempDir()
	source := "package main\n\nimport (\"fmt\"; \"os\")\n\nvar version = \"dev\"\n\nfunc main() {\n\tif len(os.Args) == 2 && os.Args[1] == \"--version\" {\n\t\tfmt.Println(\"gatewright\", version)\n\t}\n}\n"
	for path, data := range map[string]string{"go.mod": "module tiny\n\ngo 1.26\n", "main.go": source} {
		if err := os.WriteFile(filepath.Join(dir, path), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", "tiny", ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var created = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

func testSpec(binary []byte) spec {
	return spec{binary: binary, arch: runtime.GOARCH, version: "v0.1.0-3-gabcdef0", commit: "abcdef0", created: created}
}

func writeTestArchive(t *testing.T, s spec, tag string) (string, v1.Hash) {
	t.Helper()
	img, err := build(s)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		t.Fatal(err)
	}
	var archive bytes.Buffer
	if err := writeArchive(&archive, img, ref, s.created); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "image.tar")
	if err := os.WriteFile(path, archive.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, digest
}

// TestArchiveReadsBack reads the archive as its users' tools do: as an OCI layout
// (kind, containerd, skopeo) and as a docker-style tarball (crane push), and checks the
// image they find.
func TestArchiveReadsBack(t *testing.T) {
	binary := tinyBinary(t, "v0.1.0-3-gabcdef0")
	const tag = "ghcr.io/gatewright/gatewright:v0.1.0"
	archive, digest := writeTestArchive(t, testSpec(binary), tag)

	fromLayout, annotations := readLayout(t, archive)
	if got := annotations["io.containerd.image.name"]; got != tag {
		t.Errorf("io.containerd.image.name is %q, want %q", got, tag)
	}
	if got := annotations["org.opencontainers.image.ref.name"]; got != "v0.1.0" {
		t.Errorf("org.opencontainers.image.ref.name is %q, want v0.1.0", got)
	}
	tagged, err := name.NewTag(tag)
	if err != nil {
		t.Fatal(err)
	}
	fromTarball, err := tarball.ImageFromPath(archive, &tagged)
	if err != nil {
		t.Fatal(err)
	}
	// The layout holds the manifest that was built; a docker-style reader makes a Docker
	// manifest of its own, of the same config and layer blobs.
	if got, err := fromLayout.Digest(); err != nil || got != digest {
		t.Errorf("the layout's image digest is %v (%v), want %v", got, err, digest)
	}
	if mt, err := fromLayout.MediaType(); err != nil || mt != types.OCIManifestSchema1 {
		t.Errorf("the layout's manifest media type is %q (%v), want OCI", mt, err)
	}
	if layers, err := fromLayout.Layers(); err != nil || len(layers) != 1 {
		t.Fatalf("the layout's image has %d layers (%v), want 1", len(layers), err)
	} else if mt, err := layers[0].MediaType(); err != nil || mt != types.OCILayer {
		t.Errorf("the layout's layer media type is %q (%v), want %q", mt, err, types.OCILayer)
	}
	configDigest, err := fromLayout.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	for reader, img := range map[string]v1.Image{"layout": fromLayout, "tarball": fromTarball} {
		t.Run(reader, func(t *testing.T) {
			if got, err := img.ConfigName(); err != nil || got != configDigest {
				t.Errorf("config digest %v (%v), want %v", got, err, configDigest)
			}
			checkConfig(t, img)
			files := layerFiles(t, img)
			if !bytes.Equal(files[binaryPath].data, binary) || files[binaryPath].mode != 0o755 {
				t.Errorf("/%s is not the binary with mode 0755 (mode %v)", binaryPath, files[binaryPath].mode)
			}
			if !strings.Contains(string(files["etc/passwd"].data), "\nnonroot:x:65532:65532:") {
				t.Errorf("/etc/passwd has no nonroot user:\n%s", files["etc/passwd"].data)
			}
			if n := countCertificates(t, files[caBundle].data); n < 100 {
				t.Errorf("/%s holds %d certificates, want Mozilla's root store (over 100)", caBundle, n)
			}
			if got := runVersion(t, files[binaryPath].data); got != "gatewright v0.1.0-3-gabcdef0\n" {
				t.Errorf("the binary from the image says %q on --version", got)
			}
		})
	}
}

func checkConfig(t *testing.T, img v1.Image) {
	t.Helper()
	config, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{
		"entrypoint": config.Config.Entrypoint,
		"user":       config.Config.User,
		"version":    config.Config.Labels[labelVersion],
		"revision":   config.Config.Labels[labelRevision],
		"platform":   config.OS + "/" + config.Architecture,
		"created":    config.Created.UTC(),
		"env":        config.Config.Env,
		"history":    len(config.History),
		"diff ids":   len(config.RootFS.DiffIDs),
	}
	want := map[string]any{
		"entrypoint": []string{"/gatewright"},
		"user":       "65532:65532",
		"version":    "v0.1.0-3-gabcdef0",
		"revision":   "abcdef0",
		"platform":   "linux/" + runtime.GOARCH,
		"created":    created,
		"env":        []string(nil),
		"history":    1,
		"diff ids":   1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("image config (-want +got):\n%s", diff)
	}
}

// readLayout unpacks the archive into a folder and reads it as an OCI image layout.
func readLayout(t *testing.T, archive string) (v1.Image, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := tar.NewReader(f)
	for {
		header, err := r.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(header.Name))
		if header.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	index, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(manifest.Manifests) != 1 {
		t.Fatalf("the layout's index lists %d manifests, want 1", len(manifest.Manifests))
	}
	img, err := index.Image(manifest.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img, manifest.Manifests[0].Annotations
}

// layerFiles reads the image's only layer.
func layerFiles(t *testing.T, img v1.Image) map[string]file {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%d layers (%v), want 1", len(layers), err)
	}
	content, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer content.Close()
	files := map[string]file{}
	r := tar.NewReader(content)
	for {
		header, err := r.Next()
		if err == io.EOF {
			return files
		} else if err != nil {
			t.Fatal(err)
		}
		if header.Uid != 0 || header.Gid != 0 || !header.ModTime.Equal(created) {
			t.Errorf("%s: owner %d:%d, modified %v; want root, at the build's time", header.Name, header.Uid, header.Gid, header.ModTime)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		files[header.Name] = file{path: header.Name, mode: os.FileMode(header.Mode), data: data}
	}
}

func countCertificates(t *testing.T, bundle []byte) int {
	t.Helper()
	n := 0
	for block, rest := pem.Decode(bundle); block != nil; block, rest = pem.Decode(rest) {
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			t.Errorf("certificate %d: %v", n, err)
		}
		n++
	}
	return n
}

// runVersion runs a binary taken out of the image with --version.
func runVersion(t *testing.T, binary []byte) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the image's binary is for linux")
	}
	path := filepath.Join(t.TempDir(), "gatewright")
	if err := os.WriteFile(path, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestDigestIsReproducible(t *testing.T) {
	binary := tinyBinary(t, "v0.1.0-3-gabcdef0")
	const tag = "ghcr.io/gatewright/gatewright:v0.1.0"
	first, digest := writeTestArchive(t, testSpec(binary), tag)
	tests := []struct {
		name   string
		change func(*spec)
		same   bool
	}{
		{name: "a second build of one commit has the same digest and archive", change: func(*spec) {}, same: true},
		{name: "another commit time gives another digest", change: func(s *spec) { s.created = s.created.Add(time.Second) }},
		{name: "another commit gives another digest", change: func(s *spec) { s.commit = "1234567" }},
		{name: "another binary gives another digest", change: func(s *spec) { s.binary = append(bytes.Clone(s.binary), 0) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testSpec(binary)
			tt.change(&s)
			second, got := writeTestArchive(t, s, tag)
			if (got == digest) != tt.same {
				t.Errorf("digests %v and %v: same is %v, want %v", digest, got, got == digest, tt.same)
			}
			if tt.same && !bytes.Equal(readFile(t, first), readFile(t, second)) {
				t.Error("the two archives differ")
			}
		})
	}
}

func TestRootFSForTheDockerfileHoldsTheLayersFilesButTheBinary(t *testing.T) {
	dir := t.TempDir()
	if err := writeRootFS(dir, withoutBinary(rootFS(nil))); err != nil {
		t.Fatal(err)
	}
	for _, f := range rootFS([]byte("binary")) {
		info, err := os.Stat(filepath.Join(dir, f.path))
		switch {
		case f.path == binaryPath:
			if err == nil {
				t.Errorf("the folder holds /%s; the Dockerfile builds it", f.path)
			}
		case err != nil:
			t.Error(err)
		case info.Mode() != f.mode:
			t.Errorf("%s: mode %v, want %v", f.path, info.Mode(), f.mode)
		case f.data != nil && !bytes.Equal(readFile(t, filepath.Join(dir, f.path)), f.data):
			t.Errorf("%s differs from the layer's", f.path)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
